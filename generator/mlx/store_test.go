package mlx_test

import (
	"encoding/json"
	"strings"
	"testing"

	"dossier/generator/arch"
	"dossier/generator/mlx"
)

func storeBytes(t testing.TB) []byte {
	q, _ := mlx.ParseConfig(toy.Config())
	s, err := mlx.Size(q, toy.Tensors())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := arch.Parse(toy.Config(), nil)
	st := mlx.NewStore("mlx-community/Toy-4bit", strings.Repeat("ab", 20), mlx.Label(q), []mlx.StoredFile{{Path: "model.safetensors", Size: 970000}}, s, mlx.ModelOf(a))
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A store round-trips, and one whose figures do not add up is refused
// with the field named.
func TestStoreDecode(t *testing.T) {
	b := storeBytes(t)
	st, err := mlx.DecodeStore(b)
	if err != nil {
		t.Fatal(err)
	}
	if s := st.SizesOf(); s.Params != 1_707_520 || s.TensorBytes != 963_712 || st.Model.FullValues != 512 || st.FileBytes() != 970000 {
		t.Errorf("%+v %+v", s, st.Model)
	}
	for old, want := range map[string]string{
		`"tensor_bytes":963712`:        "field sizes.tensor_bytes",
		`"label":"4bit-g64"`:           "field label",
		`"experts_used":2`:             "fields model.experts, experts_used",
		`"revision":"abababababababab`: "field revision",
	} {
		bad := strings.Replace(string(b), old, map[string]string{
			`"tensor_bytes":963712`: `"tensor_bytes":963713`, `"label":"4bit-g64"`: `"label":"4 bit"`,
			`"experts_used":2`: `"experts_used":9`, `"revision":"abababababababab`: `"revision":"zbababababababab`}[old], 1)
		if bad == string(b) {
			t.Fatalf("%s not in the store", old)
		}
		if _, err := mlx.DecodeStore([]byte(bad)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", old, err, want)
		}
	}
	if _, err := mlx.DecodeStore(append(b, []byte(`{}`)...)); err == nil {
		t.Error("a trailing value was accepted")
	}
}
