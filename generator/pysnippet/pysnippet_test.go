package pysnippet

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const sample = `# a tutorial snippet
import torch, datasets as ds
from transformers import (AutoModelForCausalLM,
    AutoTokenizer as Tok)
from trl import SFTTrainer
model_id = "kimi/" 'kimi-k3'
model = AutoModelForCausalLM.from_pretrained(model_id, dtype=torch.bfloat16)
trainer = SFTTrainer(
    model=model,
    tokenizer=Tok.from_pretrained(model_id),  # removed
    max_seq_length=2048,
    train_dataset="train.jsonl",
    note=r"a\nb", doc="""two
lines""",
    **extra,
)
def f(x): return x
`

func TestParse(t *testing.T) {
	sn, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	var imports []string
	for _, im := range sn.Imports {
		imports = append(imports, im.Module+":"+im.Name+"→"+im.Local())
	}
	if got := strings.Join(imports, " "); got != "torch:→torch datasets:→ds transformers:AutoModelForCausalLM→AutoModelForCausalLM transformers:AutoTokenizer→Tok trl:SFTTrainer→SFTTrainer" {
		t.Errorf("imports %s", got)
	}
	if len(sn.Assigns) != 3 || sn.Assigns[0] != (Assign{Name: "model_id", Value: "kimi/kimi-k3", Line: 6}) ||
		sn.Assigns[2] != (Assign{Name: "trainer", Call: "SFTTrainer", Line: 8}) {
		t.Errorf("assigns %+v", sn.Assigns)
	}
	calls := map[string]Call{}
	for _, c := range sn.Calls {
		calls[c.Func] = c
	}
	if _, ok := calls["f"]; ok {
		t.Error("a def is not a call")
	}
	st, ok := calls["SFTTrainer"]
	if !ok || st.Line != 8 {
		t.Fatalf("SFTTrainer call: %+v", st)
	}
	for k, line := range map[string]int{"model": 9, "tokenizer": 10, "max_seq_length": 11, "train_dataset": 12, "**": 15} {
		if a, ok := st.Keyword(k); !ok || a.Line != line {
			t.Errorf("keyword %s: %+v, want line %d", k, a, line)
		}
	}
	if a, _ := st.Keyword("train_dataset"); !a.IsString || a.Str != "train.jsonl" {
		t.Errorf("train_dataset %+v", a)
	}
	if a, _ := st.Keyword("note"); a.Str != `a\nb` {
		t.Errorf("raw string %q", a.Str)
	}
	if a, _ := st.Keyword("doc"); a.Str != "two\nlines" || a.Line != 13 {
		t.Errorf("triple-quoted %+v", a)
	}
	if a, _ := st.Keyword("tokenizer"); a.IsString || a.Text != "Tok . from_pretrained ( model_id )" {
		t.Errorf("tokenizer arg %+v", a)
	}
	if c, ok := calls["Tok.from_pretrained"]; !ok || c.Line != 10 {
		t.Errorf("nested call: %+v", c)
	}
	if c := calls["AutoModelForCausalLM.from_pretrained"]; len(c.Args) != 2 || c.Args[0].Text != "model_id" || c.Args[1].Keyword != "dtype" {
		t.Errorf("from_pretrained args %+v", c.Args)
	}
}

func TestBadSnippets(t *testing.T) {
	cases := map[string]struct {
		src  []byte
		line int
		msg  string
	}{
		"binary":      {[]byte("import x\n\x00\x01"), 2, "NUL"},
		"huge":        {bytes.Repeat([]byte("#\n"), MaxBytes), 0, "larger"},
		"not utf-8":   {[]byte("x = '\xff'"), 0, "UTF-8"},
		"unclosed":    {[]byte("f(a,\n  b\n"), 1, "never closed"},
		"extra close": {[]byte("f(a))\n"), 1, "nothing is open"},
		"mismatched":  {[]byte("f([a)\n"), 1, "still open"},
		"string":      {[]byte("x = 'abc\n"), 1, "unterminated"},
		"triple":      {[]byte("x = \"\"\"abc\n"), 1, "unterminated"},
		"deep":        {[]byte(strings.Repeat("(", 300)), 1, "nested deeper"},
	}
	for name, c := range cases {
		_, err := Parse(c.src)
		var e *Error
		if !errors.As(err, &e) || e.Line != c.line || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%s: %v, want line %d %q", name, err, c.line, c.msg)
		}
	}
}

// FuzzParse: any input is tokenized or refused with an Error, never a
// panic; a call's arguments lie on lines of the input.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("from a import (b as c,)\nx = f'{y}' 'z'\n"))
	f.Add([]byte("x = r'\\\n' + b\"\\\"\"\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		sn, err := Parse(src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		lines := bytes.Count(src, []byte{'\n'}) + 1
		for _, c := range sn.Calls {
			if c.Line < 1 || c.Line > lines {
				t.Fatalf("call %s on line %d of %d", c.Func, c.Line, lines)
			}
			for _, a := range c.Args {
				if a.Line < 1 || a.Line > lines {
					t.Fatalf("argument on line %d of %d", a.Line, lines)
				}
			}
		}
	})
}
