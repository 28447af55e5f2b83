package safetensors

import "testing"

func TestRoleOf(t *testing.T) {
	cases := map[[2]string]Role{
		{"model.layers.3.mlp.experts.7.up_proj.weight_packed", "U8"}:     RolePayload,
		{"model.layers.3.mlp.experts.gate_up_proj_blocks", "U8"}:         RolePayload,
		{"model.layers.3.mlp.experts.7.up_proj.weight_scale", "U8"}:      RoleScale,
		{"model.layers.3.self_attn.q_proj.weight_scale_inv", "F32"}:      RoleScale,
		{"model.layers.3.mlp.experts.gate_up_proj_scales", "U8"}:         RoleScale,
		{"model.layers.3.mlp.down_proj.weight_global_scale", "F32"}:      RoleScale,
		{"model.layers.3.mlp.down_proj.weight", "F8_E8M0"}:               RoleScale,
		{"model.layers.3.mlp.experts.7.up_proj.weight_shape", "I32"}:     RoleAux,
		{"model.layers.3.mlp.experts.7.up_proj.weight_zero_point", "I8"}: RoleAux,
		{"model.layers.3.mlp.down_proj.g_idx", "I32"}:                    RoleAux,
		{"model.layers.3.mlp.down_proj.weight_g_idx", "I32"}:             RoleAux,
		{"model.embed_tokens.weight", "BF16"}:                            RoleOther,
		{"model.layers.3.mlp.experts.e_score_correction_bias", "F32"}:    RoleOther,
	}
	for in, want := range cases {
		if got := RoleOf(in[0], in[1]); got != want {
			t.Errorf("RoleOf(%s, %s) = %s, want %s", in[0], in[1], got, want)
		}
	}
}

func TestCensus(t *testing.T) {
	h1, err := Build([]TensorInfo{
		{Name: "e.0.weight_packed", DType: "U8", Shape: []int64{64, 16}},
		{Name: "e.0.weight_scale", DType: "U8", Shape: []int64{64, 1}},
		{Name: "e.0.weight_shape", DType: "I32", Shape: []int64{2}},
		{Name: "norm.weight", DType: "BF16", Shape: []int64{64}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h2, err := Build([]TensorInfo{
		{Name: "bias", DType: "F32", Shape: []int64{3}},
		{Name: "blk", DType: "F4", Shape: []int64{10}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var c Census
	for _, h := range []*Header{h1, h2} {
		if err := c.Add(h); err != nil {
			t.Fatal(err)
		}
	}
	if c.Files != 2 || c.Tensors != 6 || c.HeaderBytes != 16+h1.Len+h2.Len {
		t.Fatalf("census %+v", c)
	}
	wantElems := map[string]int64{"U8": 1088, "I32": 2, "BF16": 64, "F32": 3, "F4": 10}
	wantBytes := map[string]int64{"U8": 1088, "I32": 8, "BF16": 128, "F32": 12, "F4": 5}
	for k, v := range wantElems {
		if c.Elems[k] != v || c.Bytes[k] != wantBytes[k] {
			t.Errorf("%s: elems %d bytes %d", k, c.Elems[k], c.Bytes[k])
		}
	}
	if r := c.Roles[RolePayload]; r != (Totals{1, 1024, 1024}) {
		t.Errorf("payload %+v", r)
	}
	if r := c.Roles[RoleScale]; r != (Totals{1, 64, 64}) {
		t.Errorf("scale %+v", r)
	}
	if r := c.Roles[RoleAux]; r != (Totals{1, 2, 8}) {
		t.Errorf("aux %+v", r)
	}
	if r := c.Roles[RoleOther]; r != (Totals{3, 77, 145}) {
		t.Errorf("other %+v", r)
	}
	if c.TotalElems() != 1167 || c.TotalBytes() != 1241 {
		t.Errorf("totals %d %d", c.TotalElems(), c.TotalBytes())
	}
}

func TestCensusOverflow(t *testing.T) {
	huge := &Header{Tensors: []TensorInfo{{Name: "x", DType: "U8", Shape: []int64{1 << 62}, End: 1 << 62}}}
	var c Census
	if err := c.Add(huge); err != nil {
		t.Fatal(err)
	}
	if err := c.Add(huge); err == nil {
		t.Fatal("no overflow error")
	}
	if c.Files != 1 || c.Elems["U8"] != 1<<62 || c.Roles[RoleOther].Tensors != 1 {
		t.Fatalf("failed Add changed the census: %+v", c)
	}
}
