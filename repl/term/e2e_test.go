package term_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hybridgo/hybridgo/internal/tmuxtest"
)

// A person at a terminal: the real binary runs in tmux, keys are typed
// into it, and the screen is read back. The test types MXNet's hybridize
// tutorial in Go (ARCHITECTURE.md, section 1), completes a name with Tab,
// interrupts an endless loop with Ctrl-C, survives a panic, redefines a
// method, and quits with Ctrl-D.
func TestTerminalSession(t *testing.T) {
	skipWithoutTmux(t)
	dir := t.TempDir()
	bin := tmuxtest.Build(t, dir)
	tm := startTmux(t, dir, bin)

	// The tutorial, typed line by line with spaces (Tab completes).
	tm.typeLine("type Net struct {")
	if last := tm.lastLine(); last != "..." {
		t.Fatalf("an open brace gives the prompt %q, want \"...\"", last)
	}
	tm.typeLines(`    nn.HybridBlock
    Conv1, Conv2 *nn.Conv2D
    Pool1, Pool2 *nn.MaxPool2D
    Fc1, Fc2     *nn.Dense
    Fc3Weight    *nn.Parameter
}`)
	if last := tm.lastLine(); last != ">>>" {
		t.Fatalf("after the closing brace the prompt is %q, want \">>>\"", last)
	}
	tm.typeLines(`func (n *Net) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
    fmt.Println(x)
    x = n.Pool1.Forward(F.Relu(n.Conv1.Forward(x)))
    x = n.Pool2.Forward(F.Relu(n.Conv2.Forward(x)))
    x = F.Reshape(x, 0, -1)
    x = F.Relu(n.Fc1.Forward(x))
    x = F.Relu(n.Fc2.Forward(x))
    return F.Dot(x, nn.Param(F, n.Fc3Weight), ops.TransposeB())
}
func NewNet() *Net {
    n := &Net{
        Conv1: nn.NewConv2D(6, []int{5}), Pool1: nn.NewMaxPool2D([]int{2}),
        Conv2: nn.NewConv2D(16, []int{5}), Pool2: nn.NewMaxPool2D([]int{2}),
        Fc1: nn.NewDense(120), Fc2: nn.NewDense(84),
        Fc3Weight: nn.NewParameter("fc3_weight", ops.Shape{10, 84}),
    }
    n.Bind(n, "net")
    return n
}
net := NewNet()
net.Initialize()
x := nd.RandomNormal(16, 1, 28, 28)`)
	tm.noErrors()

	// Eagerly, HybridForward prints the NDArray it is given, and the
	// result is printed.
	tm.mark()
	tm.typeLine("net.Forward(x)")
	since := tm.sinceMark()
	if !strings.Contains(since, "<NDArray 16x1x28x28 @cpu(0)>") || !strings.Contains(since, "<NDArray 16x10 @cpu(0)>") {
		t.Fatalf("eager forward printed:\n%s", since)
	}
	// The first hybridized call traces: a Symbol with its shape, once.
	tm.typeLine("net.Hybridize()")
	tm.mark()
	tm.typeLine("net.Forward(x)")
	since = tm.sinceMark()
	if strings.Count(since, "<Symbol data 16x1x28x28 float32>") != 1 || !strings.Contains(since, "<NDArray 16x10 @cpu(0)>") || strings.Contains(since, "<NDArray 16x1x28x28") {
		t.Fatalf("the tracing call printed:\n%s", since)
	}
	// The cached graph runs without entering HybridForward.
	tm.mark()
	tm.typeLine("net.Forward(x)")
	since = tm.sinceMark()
	if strings.Contains(since, "Symbol") || strings.Contains(since, "16x1x28x28") || !strings.Contains(since, "<NDArray 16x10 @cpu(0)>") {
		t.Fatalf("the cached call printed:\n%s", since)
	}
	tm.mark()
	tm.typeLine(":graph net")
	since = tm.sinceMark()
	for _, want := range []string{"Convolution", "Pooling", "FullyConnected", "dot", "16x10"} {
		if !strings.Contains(since, want) {
			t.Fatalf(":graph net lacks %q:\n%s", want, since)
		}
	}
	tm.noErrors()

	// Tab completes nd.Rand.
	tm.send("-l", "y := nd.Rand")
	tm.send("Tab")
	tm.send("Tab")
	tm.waitFor(func(s string) bool {
		return strings.Contains(s, "RandomNormal") && strings.Contains(s, "RandomUniform")
	}, "the completions of nd.Rand")
	tm.send("C-c") // leaves the completion list
	tm.send("C-c") // discards the line
	tm.waitFor(func(string) bool { return tm.lastLine() == ">>>" }, "a fresh prompt after Ctrl-C")
	tm.mark()
	tm.typeLine("1 + 1")
	if got := tm.sinceMark(); !strings.Contains(got, "\n2\n") || strings.Contains(got, "undefined") {
		t.Fatalf("after discarding the completed line, 1 + 1 printed:\n%s", got)
	}

	// Ctrl-C interrupts a running cell; the variables are kept.
	tm.typeLine("k := 41")
	tm.mark()
	tm.send("-l", "for {}")
	tm.send("Enter")
	time.Sleep(500 * time.Millisecond)
	tm.send("C-c")
	tm.waitFor(func(string) bool { return strings.Contains(tm.sinceMark(), "interrupted") && tm.lastLine() == ">>>" }, "the interrupted loop")
	tm.mark()
	tm.typeLine("k + 1")
	if got := tm.sinceMark(); !strings.Contains(got, "\n42\n") {
		t.Fatalf("after the interrupt, k + 1 printed:\n%s", got)
	}

	// A panicking cell is reported; the next one works.
	tm.mark()
	tm.typeLine(`panic("kaboom")`)
	tm.typeLine("k * 2")
	if got := tm.sinceMark(); !strings.Contains(got, "kaboom") || !strings.Contains(got, "\n82\n") {
		t.Fatalf("a panic, then k * 2 printed:\n%s", got)
	}

	// A redefined method takes effect.
	tm.typeLines(`type Greeter struct{ Name string }
func (g Greeter) Hello() string { return "hello " + g.Name }
g := Greeter{"gopher"}`)
	tm.mark()
	tm.typeLine("g.Hello()")
	tm.typeLine(`func (g Greeter) Hello() string { return "bonjour " + g.Name }`)
	tm.typeLine("g.Hello()")
	if got := tm.sinceMark(); !strings.Contains(got, "\nhello gopher\n") || !strings.Contains(got, "\nbonjour gopher\n") || strings.Contains(got, "error") {
		t.Fatalf("the redefined method did not take effect:\n%s", got)
	}

	// Ctrl-D on an empty line quits; whole statements are in the history.
	tm.send("C-d")
	tm.waitFor(func(string) bool { return tm.dead() }, "the REPL to exit after Ctrl-D")
	hist, err := os.ReadFile(filepath.Join(dir, ".hybridgo_history"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range strings.Split(string(hist), "\n") {
		if s, err := strconv.Unquote(line); err == nil && strings.HasPrefix(s, "type Net struct {\n") && strings.HasSuffix(s, "Fc3Weight    *nn.Parameter\n}") {
			found = true
		}
	}
	if !found {
		t.Errorf("the history lacks the Net type as one entry:\n%s", hist)
	}
}

// skipWithoutTmux skips the end-to-end tests in -short mode and without
// tmux, saying why.
func skipWithoutTmux(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux")
	}
	if !tmuxtest.Available() {
		t.Skip("tmux is not installed (apt-get install tmux, or make deps): the terminal end-to-end test is skipped")
	}
}

// Ctrl-C on a REPL reading a pipe (cat | hybridgo, a script): SIGINT
// stops the running cell, the REPL says so, and the variables are kept.
func TestPipedInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and signals it")
	}
	bin := tmuxtest.Build(t, t.TempDir())
	cmd := exec.Command(bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	io.WriteString(stdin, "k := 41\nfmt.Println(\"looping\")\nfor {}\n")
	if !lines.Scan() || lines.Text() != "looping" {
		t.Fatalf("the first line is %q", lines.Text())
	}
	time.Sleep(200 * time.Millisecond) // the loop runs
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, "k + 1\n")
	stdin.Close()
	var rest []string
	for lines.Scan() {
		rest = append(rest, lines.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v; stderr %q", err, errOut.String())
	}
	if strings.Join(rest, "\n") != "42" || errOut.String() != "interrupted (variables are kept)\n" {
		t.Errorf("stdout after the loop %q, stderr %q", rest, errOut.String())
	}
}

// tmux is the REPL in a tmux pane, with the REPL's prompts understood.
type tmux struct {
	*tmuxtest.Pane
	t *testing.T
}

func startTmux(t *testing.T, dir, bin string) *tmux {
	tm := &tmux{Pane: tmuxtest.Start(t, dir, bin), t: t}
	tm.waitFor(func(string) bool { return tm.lastLine() == ">>>" }, "the first prompt")
	return tm
}

func (tm *tmux) send(keys ...string) { tm.t.Helper(); tm.Send(keys...) }
func (tm *tmux) screen() string      { return tm.Screen() }
func (tm *tmux) lastLine() string    { return tm.LastLine() }
func (tm *tmux) dead() bool          { return tm.Dead() }
func (tm *tmux) mark()               { tm.Mark() }
func (tm *tmux) sinceMark() string   { return tm.SinceMark() }
func (tm *tmux) waitFor(ok func(string) bool, what string) {
	tm.t.Helper()
	tm.WaitFor(ok, what)
}

// prompts counts the prompt lines so far.
func (tm *tmux) prompts() int {
	n := 0
	for _, l := range strings.Split(tm.screen(), "\n") {
		if l == ">>>" || l == "..." || strings.HasPrefix(l, ">>> ") || strings.HasPrefix(l, "... ") {
			n++
		}
	}
	return n
}

// typeLine types a line and Enter, and waits for the next prompt.
func (tm *tmux) typeLine(line string) {
	tm.t.Helper()
	n := tm.prompts()
	tm.send("-l", line)
	tm.send("Enter")
	tm.waitFor(func(string) bool {
		last := tm.lastLine()
		return tm.prompts() > n && (last == ">>>" || last == "...")
	}, fmt.Sprintf("the prompt after %q", line))
}

func (tm *tmux) typeLines(text string) {
	tm.t.Helper()
	for _, l := range strings.Split(text, "\n") {
		tm.typeLine(l)
	}
}

// noErrors fails when the screen shows an error or a panic.
func (tm *tmux) noErrors() {
	tm.t.Helper()
	s := tm.screen()
	for _, bad := range []string{"error:", "panic"} {
		if strings.Contains(s, bad) {
			tm.t.Fatalf("the screen shows %q:\n%s", bad, s)
		}
	}
}

// A cell that kills the worker process, typed at the real binary: the
// screen shows one line saying why, never the runtime's stack trace, and
// the variables are back after the replay. :restart -no-replay empties
// the session.
func TestTerminalSurvivesFatalCells(t *testing.T) {
	skipWithoutTmux(t)
	dir := t.TempDir()
	tm := startTmux(t, dir, tmuxtest.Build(t, dir)+" -memory 2GiB")
	tm.typeLine("x := 41")
	tm.typeLine(`fmt.Println("printed once")`)
	tm.typeLine("func f(n int) int { return f(n+1) + 1 }")
	for _, c := range []struct{ cell, want, restored string }{
		{"f(0)", "stack overflow in f, called in cell 4 (f(0)): infinite recursion? session restarted", "restored 3 cells in"},
		{"b := make([]byte, 40<<30)", "out of memory allocating 40 GiB in cell 6 (b := make([]byte, 40<<30)) (the limit is 2 GiB; hybridgo -memory changes it), session restarted",
			"restored 4 cells in"}, // x + 1 is the fourth
	} {
		tm.mark()
		tm.typeLine(c.cell)
		tm.waitFor(func(string) bool { return strings.Contains(tm.sinceMark(), "restored ") }, "the restored session")
		since := tm.sinceMark()
		if !strings.Contains(since, "\n"+c.want+"\n") || !strings.Contains(since, c.restored) {
			t.Errorf("%s printed:\n%s\nwant the line %q", c.cell, since, c.want)
		}
		for _, bad := range []string{"goroutine ", "runtime.", "fatal error", "printed once"} {
			if strings.Contains(since, bad) {
				t.Errorf("%s printed %q:\n%s", c.cell, bad, since)
			}
		}
		tm.mark()
		tm.typeLine("x + 1")
		if got := tm.sinceMark(); !strings.Contains(got, "\n42\n") {
			t.Fatalf("after the restart, x + 1 printed:\n%s", got)
		}
	}
	tm.mark()
	tm.typeLine(":restart -no-replay")
	tm.typeLine("x")
	if got := tm.sinceMark(); !strings.Contains(got, "the session was restarted empty") || !strings.Contains(got, "undefined: x") {
		t.Errorf(":restart -no-replay, then x printed:\n%s", got)
	}
}
