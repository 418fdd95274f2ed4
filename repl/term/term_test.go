package term

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hybridgo/hybridgo/repl"
)

func TestParseCommand(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
		want Command
	}{
		{":help", true, Command{Name: "help", Args: []string{}}},
		{"  :graph net  out.svg ", true, Command{Name: "graph", Args: []string{"net", "out.svg"}, Rest: "net  out.svg"}},
		{":time net.Forward(x)", true, Command{Name: "time", Args: []string{"net.Forward(x)"}, Rest: "net.Forward(x)"}},
		{":time\tF.Add(a, b)", true, Command{Name: "time", Args: []string{"F.Add(a,", "b)"}, Rest: "F.Add(a, b)"}},
		{":", true, Command{Args: []string{}}},
		{"x := 1", false, Command{}},
		{"fmt.Println(\":help\")", false, Command{}},
		{":= 3", false, Command{}},
	} {
		got, ok := ParseCommand(c.line)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseCommand(%q) = %#v, %v; want %#v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// batch runs input through a fresh REPL without a terminal and returns
// what it printed to stdout and stderr.
func batch(t *testing.T, input string) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	var mu sync.Mutex // cells' goroutines write errOut too
	stderr := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return errOut.Write(p)
	})
	s, err := repl.NewSession(repl.Options{Stdout: &out, Stderr: stderr})
	if err != nil {
		t.Fatal(err)
	}
	if err := RunBatch(New(s, &out, stderr), strings.NewReader(input)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return out.String(), errOut.String()
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestBatchPrintsValuesOnly(t *testing.T) {
	out, errOut := batch(t, "x := nd.Ones(2)\nx\n")
	if out != "[1. 1.]\n<NDArray 2 @cpu(0)>\n" || errOut != "" {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
}

func TestBatchMultiLineStatements(t *testing.T) {
	out, errOut := batch(t, `func sumDoubles(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += 2 * i
	}
	return s
}

s := sumDoubles(4)
for i := 0; i < 3; i++ {
	s++
}
if v := s; v > 10 {
	s = v - 3
}
s
fmt.Println("sum",
	s)
`)
	if out != "12\nsum 12\n" || errOut != "" {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
}

func TestBatchGoesOnAfterErrorsAndPanics(t *testing.T) {
	out, errOut := batch(t, "panic(\"boom\")\nnotDefined + 1\nvar a []int\na[3]\n1 + 2\n")
	if out != "3\n" {
		t.Errorf("stdout %q", out)
	}
	for _, want := range []string{"boom", "notDefined", "index out of range"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q: %q", want, errOut)
		}
	}
}

func TestBatchUnfinishedStatementAtTheEnd(t *testing.T) {
	out, errOut := batch(t, "1 + 1\nfunc f() {\n")
	if out != "2\n" || !strings.HasPrefix(errOut, "error:") {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
}

func TestUnknownCommandListsTheCommands(t *testing.T) {
	_, errOut := batch(t, ":frobnicate\n")
	if !strings.Contains(errOut, "unknown command :frobnicate") {
		t.Errorf("stderr %q", errOut)
	}
	for _, c := range commands {
		if !strings.Contains(errOut, ":"+c.name) {
			t.Errorf("the message does not list :%s: %q", c.name, errOut)
		}
	}
}

func TestHelpAndQuit(t *testing.T) {
	out, _ := batch(t, ":help\n:quit\n1 + 1\n")
	for _, c := range commands {
		if !strings.Contains(out, c.usage) {
			t.Errorf(":help lacks %q", c.usage)
		}
	}
	if strings.Contains(out, "\n2\n") {
		t.Error("a statement after :quit ran")
	}
}

func TestUsageErrors(t *testing.T) {
	_, errOut := batch(t, ":graph\n:trace maybe\n:time\n:load\n:save a b\n:doc\n")
	for _, want := range []string{"usage: :graph NAME", "usage: :trace on|off", "usage: :time EXPR", "usage: :load FILE.go", "usage: :save FILE.go", "usage: :doc NAME"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// A block typed into the session, hybridized and run: :graph draws its
// traced graph, to the terminal and to a file, and :trace prints its ops
// as they are traced (and only then).
const denseBlock = `type Small struct {
	nn.HybridBlock
	Fc *nn.Dense
}
func (s *Small) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return F.Relu(s.Fc.Forward(x))
}
b := &Small{Fc: nn.NewDense(3)}
b.Bind(b, "small")
b.Initialize()
`

func TestGraphAndTrace(t *testing.T) {
	dir := t.TempDir()
	file, svg, page := filepath.Join(dir, "g.txt"), filepath.Join(dir, "g.svg"), filepath.Join(dir, "g.html")
	out, errOut := batch(t, denseBlock+`:graph b
b.Hybridize()
:graph b
:trace on
y := b.Forward(nd.Ones(2, 4))
y = b.Forward(nd.Ones(2, 4))
:trace off
:graph b
:graph b `+file+`
:graph b out.png
r := graph.F.Relu(graph.Var("data", ops.Shape{5}, ops.Float32))
:graph r
:graph r `+svg+`
:graph r `+page+`
:graph nothing
`)
	for _, want := range []string{
		"b is not hybridized: call b.Hybridize()",
		"b has not run since Hybridize",
		"unknown graph file type \".png\"",
		"nothing is not defined",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if n := strings.Count(out, "trace: small0_dense0_fwd = FullyConnected(data, small0_dense0_weight, small0_dense0_bias) -> 2x3 float32"); n != 1 {
		t.Errorf("the dense op was traced %d times, want once:\n%s", n, out)
	}
	if strings.Contains(out, "head_grad") {
		t.Errorf(":trace printed gradient ops:\n%s", out)
	}
	if !strings.Contains(out, "│ dense0_fwd FullyConnected │") || !strings.Contains(out, "│     2x3     │") {
		t.Errorf(":graph b did not draw the graph:\n%s", out)
	}
	if !strings.Contains(out, "│   5   │") {
		t.Errorf(":graph r did not draw the symbol:\n%s", out)
	}
	for f, want := range map[string]string{file: "dense0_fwd FullyConnected", svg: "<svg", page: "<!DOCTYPE html>"} {
		b, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("graph file %s: %v %.200q", f, err, b)
		}
	}
}

func TestTime(t *testing.T) {
	defer func(d time.Duration) { timeBudget = d }(timeBudget)
	timeBudget = 50 * time.Millisecond
	out, errOut := batch(t, "a := nd.Ones(4)\n:time nd.F.Add(a, a)\n:time fmt.Sprint()\n:time undefinedName\n:vars\n")
	if strings.Count(out, " per run (median of ") != 2 {
		t.Errorf("stdout %q", out)
	}
	if !strings.Contains(errOut, "undefinedName") {
		t.Errorf("stderr %q", errOut)
	}
	if strings.Contains(out, timeMarker) {
		t.Errorf(":vars shows the timing helper:\n%s", out)
	}
}

// :save writes a Go file that go/parser accepts and :load reads back
// into the same variables.
func TestSaveAndLoad(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cells.go")
	out, errOut := batch(t, `import "strings"
func shout(s string) string { return strings.ToUpper(s) + "!" }
x := nd.Ones(3)
greeting := shout("hi")
display.HTML("<b>" + greeting + "</b>")
:save `+file+`
`)
	if errOut != "" || !strings.Contains(out, "saved "+file) {
		t.Fatalf("stdout %q, stderr %q", out, errOut)
	}
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"package main", "\"strings\"", "\"github.com/hybridgo/hybridgo/repl/nd\"", "\"github.com/hybridgo/hybridgo/display\"",
		"func shout(s string) string", "func main() {\n\tx := nd.Ones(3)\n\tgreeting := shout(\"hi\")\n\tdisplay.HTML(\"<b>\" + greeting + \"</b>\")\n}"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("saved file lacks %q:\n%s", want, src)
		}
	}
	out, errOut = batch(t, ":load "+file+"\ngreeting\nx.Shape()\n")
	if errOut != "" || out != "loaded "+file+"\nHI!\n3\n" {
		t.Errorf("load: stdout %q, stderr %q", out, errOut)
	}
	// A file of statements as typed at the prompt loads too.
	script := filepath.Join(t.TempDir(), "script.go")
	os.WriteFile(script, []byte("y := 40\ny + 2\n"), 0o644)
	out, errOut = batch(t, ":load "+script+"\n:load /no/such/file.go\n")
	if out != "42\n" || !strings.Contains(errOut, "no such file") {
		t.Errorf("script: stdout %q, stderr %q", out, errOut)
	}
}

// A script that loads itself, directly or through another, is an error,
// not a stack overflow; loading the same file twice in a row is fine.
func TestLoadItself(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("self.txt", []byte("1 + 1\n:load self.txt\n"), 0o644)
	out, errOut := batch(t, ":load self.txt\n")
	if out != "2\n" || !strings.Contains(errOut, "self.txt loads itself (self.txt -> self.txt)") {
		t.Errorf("self: stdout %q, stderr %q", out, errOut)
	}
	os.WriteFile("a.txt", []byte(":load b.txt\n"), 0o644)
	os.WriteFile("b.txt", []byte("3\n:load "+filepath.Join(dir, "a.txt")+"\n"), 0o644)
	out, errOut = batch(t, ":load a.txt\n")
	want := "loads itself (a.txt -> b.txt -> " + filepath.Join(dir, "a.txt") + ")"
	if out != "3\n" || !strings.Contains(errOut, want) {
		t.Errorf("a and b: stdout %q, stderr %q, want %q", out, errOut, want)
	}
	os.WriteFile("twice.txt", []byte(":load b2.txt\n:load b2.txt\n"), 0o644)
	os.WriteFile("b2.txt", []byte("4\n"), 0o644)
	if out, errOut = batch(t, ":load twice.txt\n"); out != "4\n4\n" || errOut != "" {
		t.Errorf("twice: stdout %q, stderr %q", out, errOut)
	}
}

func TestFileCells(t *testing.T) {
	cells, ok := fileCells("package main\n\nimport \"fmt\"\n\ntype T int\n\nfunc main() {\n\tt := T(1)\n\tfmt.Println(t)\n}\n")
	want := []string{"import \"fmt\"", "type T int", "t := T(1)\nfmt.Println(t)"}
	if !ok || !reflect.DeepEqual(cells, want) {
		t.Errorf("cells %q, %v", cells, ok)
	}
	if _, ok := fileCells("x := 1\n"); ok {
		t.Error("statements parsed as a file")
	}
}

func TestHistoryKeepsWholeStatements(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	h := &history{path: path}
	entries := []string{"x := 1", "func f() {\n\treturn\n}", `s := "a\\b"`}
	for _, e := range entries {
		h.add(nil, e)
	}
	if got := h.load(); !reflect.DeepEqual(got, entries) {
		t.Errorf("history %q, want %q", got, entries)
	}
	for i := 0; i < historyLimit+5; i++ {
		h.add(nil, "y := 2")
	}
	if got := h.load(); len(got) != historyLimit {
		t.Errorf("%d entries kept, want %d", len(got), historyLimit)
	}
	if got := (&history{path: path}).load(); len(got) != historyLimit {
		t.Errorf("the file was not trimmed: %d entries", len(got))
	}
}

func TestCompleter(t *testing.T) {
	s, err := repl.NewSession(repl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := &completer{b: New(s, &bytes.Buffer{}, &bytes.Buffer{})}
	line := []rune("x := nd.Rand")
	cands, n := c.Do(line, len(line))
	if n != len("Rand") {
		t.Errorf("typed length %d", n)
	}
	var got []string
	for _, c := range cands {
		got = append(got, "Rand"+string(c))
	}
	joined := strings.Join(got, " ")
	if !strings.Contains(joined, "RandomNormal") || !strings.Contains(joined, "RandomUniform") {
		t.Errorf("completions of nd.Rand: %q", got)
	}
}

// A pasted block after a declaration that failed: the later lines say
// the name is undefined, and the session goes on.
func TestBatchFailedDeclaration(t *testing.T) {
	out, errOut := batch(t, "x := 1\nbad := nn.NewDense(3, nn.DenseOptions{Nope: 1})\nfmt.Println(bad)\nx + 1\nbad\n")
	if out != "2\n" {
		t.Errorf("stdout %q", out)
	}
	want := "error: 1:39: unknown field Nope in struct literal\nerror: 1:13: undefined: bad\nerror: 1:1: undefined: bad\n"
	if errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}

// A goroutine's panic is reported; the process and the session go on.
// (The cell waits for it: compiling the next cell would race with the
// goroutine's unwinding in the interpreter.)
func TestBatchGoroutinePanic(t *testing.T) {
	out, errOut := batch(t, "x := 1\ngo func() { panic(\"boom\") }(); time.Sleep(100 * time.Millisecond)\nx + 1\n")
	if out != "2\n" || errOut != "panic in a goroutine started by cell 2: boom\n" {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
}

// :profile runs a block's Forward eagerly and hybridized and shows both;
// another expression once; and leaves no helper in :vars.
func TestProfile(t *testing.T) {
	out, errOut := batch(t, `net := nn.NewHybridSequential(nn.NewDense(8, nn.DenseOptions{Act: "relu"}), nn.NewDense(3))
net.Initialize()
x := nd.Ones(2, 5)
:profile net.Forward(x)
:profile nd.F.Relu(x)
:profile undefinedName
:vars
`)
	for _, want := range []string{"eager", "hybridized", "fused: _fused_FullyConnected_relu", "eager, top ops:", "FullyConnected", "relu", "1 call(s), 1 op calls"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	t.Log(out)
	if !strings.Contains(errOut, "undefinedName") {
		t.Errorf("stderr %q", errOut)
	}
	if strings.Contains(out, timeMarker) {
		t.Errorf(":vars shows the profiling helper:\n%s", out)
	}
}

// :profile runs a block type defined in a cell in both modes too.
func TestProfileInterpretedBlock(t *testing.T) {
	out, errOut := batch(t, `type Two struct {
	nn.HybridBlock
	Fc *nn.Dense
}
func (b *Two) HybridForward(F ops.F, x ops.Tensor) ops.Tensor { return F.Relu(b.Fc.Forward(x)) }
two := &Two{Fc: nn.NewDense(4)}
two.Bind(two, "two")
two.Initialize()
x := nd.Ones(2, 3)
:profile two.Forward(x)
`)
	for _, want := range []string{"eager", "hybridized", "fused: _fused_FullyConnected_relu", "hybridized, top ops:"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s\nstderr:\n%s", want, out, errOut)
		}
	}
}
