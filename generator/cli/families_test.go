package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestREADMEFamilies: the README's family list is the registry's.
func TestREADMEFamilies(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- families:begin -->\n", "<!-- families:end -->"
	_, rest, ok := strings.Cut(string(readme), begin)
	block, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("README.md lacks the %q … %q block", begin, end)
	}
	if want := familiesMarkdown(); block != want {
		t.Errorf("README.md family list is out of date: run go run . families --markdown and paste it between the markers\n got:\n%s\nwant:\n%s", block, want)
	}
}

func TestFamiliesCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Execute([]string{"families"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"gemma2", "exact from config", "google/gemma-2-9b 9.24B", "deepseek-ai/DeepSeek-V3 684,531,386,000", "headers only"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("families output lacks %q:\n%s", want, out.String())
		}
	}
}
