package term

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/repl"
)

// The README's taste of the REPL is a transcript: lines after ">>> " and
// "... " are typed, the others are what the REPL prints. Each statement
// is run in one session, and what it printed must be the lines that
// follow it, so the README cannot drift from what the REPL does.
func TestReadmeTaste(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(raw), "## A taste of the REPL\n")
	if !ok {
		t.Fatal(`README.md has no "## A taste of the REPL" section`)
	}
	_, after, _ = strings.Cut(after, "```text\n")
	block, _, ok := strings.Cut(after, "```")
	if !ok || block == "" {
		t.Fatal("the taste of the REPL is not a ```text block")
	}
	type step struct{ input, want string }
	var steps []step
	for _, line := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, ">>> "):
			steps = append(steps, step{input: strings.TrimPrefix(line, ">>> ")})
		case strings.HasPrefix(line, "... ") && len(steps) > 0:
			steps[len(steps)-1].input += "\n" + strings.TrimPrefix(line, "... ")
		case len(steps) > 0:
			steps[len(steps)-1].want += line + "\n"
		default:
			t.Fatalf("the transcript starts with output: %q", line)
		}
	}
	if len(steps) < 8 {
		t.Fatalf("only %d statements in the taste", len(steps))
	}
	t.Chdir(t.TempDir()) // Export writes here
	var out bytes.Buffer
	s, err := repl.NewSession(repl.Options{Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	r := New(s, &out, &out)
	for _, st := range steps {
		out.Reset()
		r.Execute(st.input)
		if got := out.String(); got != st.want {
			t.Errorf("README: %q printed\n%s\nwant\n%s", st.input, got, st.want)
		}
	}
	for _, f := range []string{"mlp-symbol.json", "mlp-0000.params"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the taste's Export did not write %s", f)
		}
	}
}
