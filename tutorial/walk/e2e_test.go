package walk_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/internal/tmuxtest"
	"github.com/hybridgo/hybridgo/tutorial"
	"github.com/hybridgo/hybridgo/tutorials"
)

// stepPrompt matches the walkthrough's prompt, "[3/15] ▶" (or, after a
// cell that printed something else, "[3/15] Enter goes on · … ▶").
var stepPrompt = regexp.MustCompile(`^\[(\d+)/(\d+)\] .*▶$`)

// A reader at a terminal walks through the hybridize tutorial to its
// end: the real binary runs in tmux, Enter runs each cell, the first cell
// is edited at the prompt, and Ctrl-D leaves after the summary.
func TestWalkthroughInTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux")
	}
	if !tmuxtest.Available() {
		t.Skip("tmux is not installed (apt-get install tmux, or make deps): the walkthrough's terminal test is skipped")
	}
	src, err := tutorials.Source("hybridize")
	if err != nil {
		t.Fatal(err)
	}
	tu, err := tutorial.ParseBytes("hybridize.md", src)
	if err != nil {
		t.Fatal(err)
	}
	cells := 0
	for _, st := range tu.Steps {
		if st.Kind == tutorial.Code {
			cells++
		}
	}

	dir := t.TempDir()
	bin := tmuxtest.Build(t, dir)
	p := tmuxtest.Start(t, dir, bin+" tutorial hybridize")
	at := func(k int) func(string) bool {
		return func(string) bool {
			m := stepPrompt.FindStringSubmatch(p.LastLine())
			return m != nil && m[1] == fmt.Sprint(k) && m[2] == fmt.Sprint(cells)
		}
	}
	p.WaitFor(at(1), "the prompt of cell 1")
	if s := p.Screen(); !strings.Contains(s, "Hybrid: faster training and easy deployment") || !strings.Contains(s, "    a := nd.Ones(2, 3)") {
		t.Fatalf("the first screen lacks the title or the first cell:\n%s", s)
	}

	// Edit cell 1: keep its first line, turn Add into Mul on the second.
	p.Send("-l", ":edit")
	p.Send("Enter")
	p.WaitFor(func(string) bool { return p.LastLine() == ">>> a := nd.Ones(2, 3)" }, "the cell's first line at the prompt")
	p.Send("Enter")
	p.WaitFor(func(string) bool { return p.LastLine() == "... nd.Add(a, a)" }, "the cell's second line at the prompt")
	p.Send("C-a")
	p.Send("-l", "nd.Mul(a, a) // ")
	p.Send("Enter")
	p.WaitFor(func(s string) bool { return strings.Contains(s, "the tutorial's cell, which shows") }, "the check of the edited cell")
	if s := p.Screen(); !strings.Contains(s, "[[1. 1. 1.]\n [1. 1. 1.]]") || !strings.Contains(s, "    [[2. 2. 2.]") {
		t.Fatalf("the edited cell's output and the tutorial's are not both shown:\n%s", s)
	}
	p.Send("Enter") // go on

	for k := 2; k <= cells; k++ {
		p.WaitFor(at(k), fmt.Sprintf("the prompt of cell %d", k))
		p.Send("Enter")
	}
	want := fmt.Sprintf("End of hybridize: %d of %d cells run, %d as the tutorial shows, 1 edited. Cells that printed something else: 1.", cells, cells, cells-1)
	p.WaitFor(func(s string) bool { return strings.Contains(s, want) && p.LastLine() == ">>>" }, "the summary and the REPL prompt")
	s := p.Screen()
	if strings.Count(s, "✓ as the tutorial shows")+strings.Count(s, "✓ (prints nothing") != cells-1 {
		t.Errorf("not every other cell was checked ✓:\n%s", s)
	}
	if strings.Contains(s, "panic:") {
		t.Errorf("the screen shows a panic:\n%s", s)
	}
	// The session goes on: the tutorial's net is there.
	p.Mark()
	p.Send("-l", "y.Shape()")
	p.Send("Enter")
	p.WaitFor(func(string) bool { return strings.Contains(p.SinceMark(), "\n16x10\n") }, "the REPL after the end")
	p.Send("C-d")
	p.WaitFor(func(string) bool { return p.Dead() }, "the walkthrough to exit after Ctrl-D")
}
