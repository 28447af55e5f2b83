package pysnippet

import "strings"

// Import is one imported name: "from M import N as A" gives Module M,
// Name N, As A; "import M as A" gives Module M and an empty Name.
type Import struct {
	Module, Name, As string
	Line             int
}

// Local is the name the import binds in the snippet.
func (im Import) Local() string {
	switch {
	case im.As != "":
		return im.As
	case im.Name != "":
		return im.Name
	}
	root, _, _ := strings.Cut(im.Module, ".")
	return root
}

// Arg is one argument of a call.
type Arg struct {
	Keyword string // "" for a positional argument, "**" for **mapping
	Text    string // the argument's tokens as written, joined by spaces
	// IsString is set when the value is nothing but a string literal
	// (adjacent literals concatenated); Str is then its value.
	IsString bool
	Str      string
	Line     int
}

// Call is a call of a (dotted) name: Func is "SFTTrainer",
// "AutoModelForCausalLM.from_pretrained" or "trl.SFTTrainer"; a call on an
// expression that is not a name (f().g()) has Func ".g".
type Call struct {
	Func string
	Args []Arg
	Line int
}

// Keyword returns the argument passed as keyword k.
func (c *Call) Keyword(k string) (Arg, bool) {
	for _, a := range c.Args {
		if a.Keyword == k {
			return a, true
		}
	}
	return Arg{}, false
}

// Assign is a statement NAME = "string" (Value) or NAME = f(...) (Call,
// the dotted name called).
type Assign struct {
	Name, Value string
	Call        string
	Line        int
}

// Snippet is what Parse reads from a snippet.
type Snippet struct {
	Imports []Import
	Calls   []Call
	Assigns []Assign
}

// Parse tokenizes src and reads its imports, calls and string
// assignments.
func Parse(src []byte) (*Snippet, error) {
	toks, err := Tokenize(src)
	if err != nil {
		return nil, err
	}
	sn := &Snippet{}
	start := 0
	for i, t := range toks {
		if t.Kind == Newline {
			sn.statement(toks[start:i])
			start = i + 1
		}
	}
	for i := range toks {
		if toks[i].Kind == Name && i+1 < len(toks) && toks[i+1].Kind == Op && toks[i+1].Text == "(" {
			if i > 0 && toks[i-1].Kind == Name && (toks[i-1].Text == "def" || toks[i-1].Text == "class") {
				continue
			}
			sn.Calls = append(sn.Calls, call(toks, i))
		}
	}
	return sn, nil
}

func isOp(t Token, op string) bool { return t.Kind == Op && t.Text == op }

// statement reads imports and string assignments from one logical line.
func (sn *Snippet) statement(st []Token) {
	if len(st) == 0 || st[0].Kind != Name {
		return
	}
	switch st[0].Text {
	case "import":
		for _, part := range splitTop(st[1:]) {
			mod, rest := dotted(part)
			if mod == "" {
				continue
			}
			im := Import{Module: mod, Line: st[0].Line}
			if len(rest) == 2 && rest[0].Text == "as" {
				im.As = rest[1].Text
			}
			sn.Imports = append(sn.Imports, im)
		}
		return
	case "from":
		j := 1
		var mod strings.Builder
		for j < len(st) && !(st[j].Kind == Name && st[j].Text == "import") {
			mod.WriteString(st[j].Text)
			j++
		}
		if j >= len(st) {
			return
		}
		names := st[j+1:]
		if len(names) > 0 && isOp(names[0], "(") {
			names = names[1:]
			if len(names) > 0 && isOp(names[len(names)-1], ")") {
				names = names[:len(names)-1]
			}
		}
		for _, part := range splitTop(names) {
			if len(part) == 0 || part[0].Kind != Name {
				continue
			}
			im := Import{Module: mod.String(), Name: part[0].Text, Line: part[0].Line}
			if len(part) == 3 && part[1].Text == "as" {
				im.As = part[2].Text
			}
			sn.Imports = append(sn.Imports, im)
		}
		return
	}
	if len(st) < 3 || !isOp(st[1], "=") {
		return
	}
	if allStrings(st[2:]) {
		sn.Assigns = append(sn.Assigns, Assign{Name: st[0].Text, Value: concat(st[2:]), Line: st[0].Line})
	} else if fn, rest := dotted(st[2:]); fn != "" && len(rest) > 0 && isOp(rest[0], "(") {
		sn.Assigns = append(sn.Assigns, Assign{Name: st[0].Text, Call: fn, Line: st[0].Line})
	}
}

// dotted reads a dotted name at the start of ts and returns the rest.
func dotted(ts []Token) (string, []Token) {
	var b strings.Builder
	i := 0
	for i < len(ts) && ts[i].Kind == Name {
		b.WriteString(ts[i].Text)
		i++
		if i+1 < len(ts) && isOp(ts[i], ".") && ts[i+1].Kind == Name {
			b.WriteByte('.')
			i++
			continue
		}
		break
	}
	return b.String(), ts[i:]
}

// splitTop splits ts at the commas outside brackets.
func splitTop(ts []Token) [][]Token {
	var out [][]Token
	depth, start := 0, 0
	for i, t := range ts {
		if t.Kind != Op {
			continue
		}
		switch t.Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case ",":
			if depth == 0 {
				out = append(out, ts[start:i])
				start = i + 1
			}
		}
	}
	if start < len(ts) {
		out = append(out, ts[start:])
	}
	return out
}

func allStrings(ts []Token) bool {
	for _, t := range ts {
		if t.Kind != String {
			return false
		}
	}
	return len(ts) > 0
}

func concat(ts []Token) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.Value)
	}
	return b.String()
}

// call reads the call whose name token is toks[i] (toks[i+1] is "(").
func call(toks []Token, i int) Call {
	name := toks[i].Text
	for j := i - 1; j >= 1 && isOp(toks[j], "."); j -= 2 {
		if toks[j-1].Kind != Name {
			name = "." + name
			break
		}
		name = toks[j-1].Text + "." + name
	}
	if i >= 1 && isOp(toks[i-1], ".") && i == 1 {
		name = "." + name
	}
	// The arguments run to the matching ")" (Tokenize checked balance).
	depth, end := 0, len(toks)
	for k := i + 1; k < len(toks); k++ {
		if toks[k].Kind != Op {
			continue
		}
		switch toks[k].Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		}
		if depth == 0 {
			end = k
			break
		}
	}
	c := Call{Func: name, Line: toks[i].Line}
	var inner []Token
	for _, t := range toks[i+2 : end] {
		if t.Kind != Newline {
			inner = append(inner, t)
		}
	}
	for _, part := range splitTop(inner) {
		if len(part) == 0 {
			continue
		}
		a := Arg{Line: part[0].Line}
		val := part
		switch {
		case len(part) >= 2 && part[0].Kind == Name && isOp(part[1], "="):
			a.Keyword, val = part[0].Text, part[2:]
		case isOp(part[0], "**"):
			a.Keyword, val = "**", part[1:]
		}
		texts := make([]string, len(val))
		for k, t := range val {
			texts[k] = t.Text
		}
		a.Text = strings.Join(texts, " ")
		if allStrings(val) {
			a.IsString, a.Str = true, concat(val)
		}
		c.Args = append(c.Args, a)
	}
	return c
}
