package walk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/tutorial"
)

const sample = "# A sample\n\nSome prose.\n\n```go\nx := 1\nx\n```\n\n```output\n1\n```\n\n" +
	"## Printing\n\n```go\nfmt.Println(\"a\")\n```\n\n```output\nb\n```\n\n```go\ny := 3\n```\n"

// walkWith runs the sample tutorial with input typed on a pipe (not a
// terminal: lines are read as they come) and returns what it printed.
func walkWith(t *testing.T, input string) string {
	t.Helper()
	tu, err := tutorial.ParseBytes("sample.md", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.WriteString(input)
		w.Close()
	}()
	defer r.Close()
	var out strings.Builder
	wk, err := New(tu, "sample", Options{In: r, Out: &out, Err: &out})
	if err != nil {
		t.Fatal(err)
	}
	if code := wk.Run(); code != 0 {
		t.Errorf("Run returned %d", code)
	}
	return out.String()
}

func TestWalkRunsChecksAndEdits(t *testing.T) {
	// Enter runs cell 1; Go typed at the prompt runs in the session;
	// cell 2 prints something else than its block, and Enter goes on;
	// cell 3 is edited (y := 4). Without a terminal the walkthrough ends
	// after the summary, though input is left.
	out := walkWith(t, "\nx + 1\n\n\n:edit\ny := 4\ny * 10\n")
	for _, want := range []string{
		"sample — A sample, 3 cells",
		"A sample\n════════",
		"Some prose.",
		"    x := 1\n    x\n1\n✓ as the tutorial shows",
		"\n2\n",
		"── Printing ──",
		"a\n✗ the tutorial shows:\n    b\n",
		"✓ (prints nothing, as in the tutorial)",
		"End of sample: 3 of 3 cells run, 2 as the tutorial shows, 1 edited. Cells that printed something else: 2.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the walkthrough lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "40") || strings.Contains(out, "The session goes on") {
		t.Errorf("the session went on after the end without a terminal:\n%s", out)
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colours without Color:\n%q", out)
	}
}

func TestWalkSkipAndQuit(t *testing.T) {
	out := walkWith(t, ":skip\n:help\n:quit\n")
	for _, want := range []string{"skipped: later cells may need what it defines.", ":edit, :e", "Stopped in sample: 0 of 3 cells run, 0 as the tutorial shows, 1 skipped."} {
		if !strings.Contains(out, want) {
			t.Errorf("the walkthrough lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "End of sample") {
		t.Errorf("quitting still reached the end:\n%s", out)
	}
}

func TestWalkEndOfInputStops(t *testing.T) {
	out := walkWith(t, "\n")
	if !strings.Contains(out, "Stopped in sample: 1 of 3 cells run, 1 as the tutorial shows.") {
		t.Errorf("end of input mid-tutorial:\n%s", out)
	}
}

func TestListAndLoad(t *testing.T) {
	var b strings.Builder
	if err := List(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "hybridize") || !strings.Contains(b.String(), "Hybrid: faster training and easy deployment (") {
		t.Errorf("List:\n%s", b.String())
	}
	if _, _, err := Load("no-such-tutorial"); err == nil || !strings.Contains(err.Error(), `no tutorial is called "no-such-tutorial"`) {
		t.Errorf("Load of an unknown name: %v", err)
	}
	path := filepath.Join(t.TempDir(), "mine.md")
	os.WriteFile(path, []byte(sample), 0o644)
	tu, name, err := Load(path)
	if err != nil || name != "mine" || len(tu.Steps) == 0 {
		t.Errorf("Load(%s) = %v, %q, %v", path, tu, name, err)
	}
}

func TestMainUsage(t *testing.T) {
	var out, errOut strings.Builder
	if code := Main([]string{"a", "b"}, os.Stdin, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "usage: hybridgo tutorial") {
		t.Errorf("Main(a b) = %d, %q", code, errOut.String())
	}
	if code := Main([]string{"nope"}, os.Stdin, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), `no tutorial is called "nope"`) {
		t.Errorf("Main(nope) = %d, %q", code, errOut.String())
	}
}
