package repl

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestImportAndTypeInOneCell(t *testing.T) {
	s := newTestSession(t)
	got := s.must(`import "sort"

type byLen []string

func (b byLen) Len() int           { return len(b) }
func (b byLen) Less(i, j int) bool { return len(b[i]) < len(b[j]) }
func (b byLen) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

words := byLen{"ccc", "a", "bb"}
sort.Sort(words)
words`)
	if got != "[a bb ccc]" {
		t.Errorf("got %q", got)
	}
}

func TestPreloadedNamespaces(t *testing.T) {
	s := newTestSession(t)
	if got := s.must("nd.Relu(nd.Array([]float32{-1, 2}))"); got != "[0. 2.]\n<NDArray 2 @cpu(0)>" {
		t.Errorf("nd.Relu displayed %q", got)
	}
	if got := s.must("nd.RandomNormal(16, 1, 28, 28).Shape()"); got != "16x1x28x28" && got != "[16 1 28 28]" {
		t.Errorf("nd.RandomNormal shape %q", got)
	}
	if got := s.must("F.Add(nd.Ones(2), nd.Ones(2))"); got != "[2. 2.]\n<NDArray 2 @cpu(0)>" {
		t.Errorf("F.Add displayed %q", got)
	}
	got := s.must(`data := sym.Var("data", ops.Shape{4, 3}, ops.Float32)
sym.Relu(data)`)
	if !strings.HasPrefix(got, "<Symbol ") || !strings.HasSuffix(got, " 4x3 float32>") {
		t.Errorf("sym.Relu displayed %q", got)
	}
	// The packages are importable by path too, and the standard library
	// is imported on first use.
	s.must(`import "github.com/hybridgo/hybridgo/eager"`)
	if got := s.must("strconv.Itoa(12) + path.Base(\"a/b\")"); got != "12b" {
		t.Errorf("auto-imported packages gave %q", got)
	}
}

func TestPanicIsReported(t *testing.T) {
	s := newTestSession(t)
	s.must("x := 7")
	s.must(`func inner() { var a []int; _ = a[3] }
func outer() { inner() }`)
	err := s.fails("outer()")
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("%T %v, want a *PanicError", err, err)
	}
	if !strings.Contains(err.Error(), "index out of range") {
		t.Errorf("panic message %q", err)
	}
	if len(pe.Frames) == 0 || !strings.Contains(strings.Join(pe.Frames, " "), "inner") {
		t.Errorf("frames %q", pe.Frames)
	}
	if strings.Contains(s.err.String(), "panic:") {
		t.Errorf("frame lines leaked to stderr: %q", s.err.String())
	}
	// A panic raised by compiled code.
	err = s.fails("nd.Add(nd.Ones(2), nd.Ones(3))")
	if !errors.As(err, &pe) {
		t.Errorf("%T %v, want a *PanicError", err, err)
	}
	// A recovered panic is no error and leaves no trace.
	s.must(`func safe() (msg string) {
	defer func() { msg = fmt.Sprint(recover()) }()
	panic("caught")
}
m := safe()`)
	if got := s.must("m"); got != "caught" {
		t.Errorf("recover gave %q", got)
	}
	if got := s.must("x"); got != "7" {
		t.Errorf("after panics x = %q", got)
	}
}

func TestInterrupt(t *testing.T) {
	s := newTestSession(t)
	s.must("n := 0")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := s.Eval(ctx, "for {\n\tn++\n}")
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("got %v, want ErrInterrupted", err)
	}
	v, ok := s.Lookup("n")
	if !ok || v.Int() == 0 {
		t.Errorf("n after the interrupt: %v %v", v, ok)
	}
	if got := s.must("n > 0"); got != "true" {
		t.Errorf("n > 0 is %q", got)
	}
	// A blocked channel operation stops too.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel2()
	if _, err := s.Eval(ctx2, "ch := make(chan int)\n<-ch"); !errors.Is(err, ErrInterrupted) {
		t.Errorf("blocked receive: %v", err)
	}
	s.must("n = 1")
}

func TestRedefinitionReplays(t *testing.T) {
	s := newTestSession(t)
	s.must("type T struct{ A int }")
	s.must("func (t T) Get() int { return t.A }")
	s.must(`v := T{A: 2}
fmt.Println("made v")`)
	if got := s.must("v.Get()"); got != "2" {
		t.Fatalf("v.Get() = %q", got)
	}
	s.out.Reset()
	// A new method body takes effect, for v too (it is made again).
	s.must("func (t T) Get() int { return t.A * 10 }")
	if got := s.must("v.Get()"); got != "20" {
		t.Errorf("after redefining the method v.Get() = %q", got)
	}
	if strings.Contains(s.out.String(), "made v") {
		t.Errorf("the replay printed: %q", s.out.String())
	}
	// A new type takes effect.
	s.must("type T struct{ A, B int }")
	if got := s.must("T{B: 3}.B + v.Get()"); got != "23" {
		t.Errorf("after redefining the type: %q", got)
	}
	// Re-running an identical declaration needs no replay and changes nothing.
	s.must("type T struct{ A, B int }")
	// The saved cells hold only the latest declarations.
	cells := strings.Join(s.Cells(), "\n")
	if strings.Count(cells, "func (t T) Get()") != 1 || strings.Count(cells, "type T struct") != 1 {
		t.Errorf("cells:\n%s", cells)
	}
	// A redefinition that breaks an earlier cell is refused, and the session stays.
	err := s.fails("type T struct{ C string }")
	if !strings.Contains(err.Error(), "type T") {
		t.Errorf("refusal %q", err)
	}
	if got := s.must("v.Get()"); got != "20" {
		t.Errorf("after the refusal v.Get() = %q", got)
	}
	// Functions are redefined in place.
	s.must("func f() int { return 1 }")
	s.must("func f() int { return 2 }")
	if got := s.must("f()"); got != "2" {
		t.Errorf("f() = %q", got)
	}
}

func TestUnsupportedRange(t *testing.T) {
	s := newTestSession(t)
	s.must("n := 3")
	for _, c := range []string{
		"for i := range 3 {\n\t_ = i\n}",
		"x := 1\nfor range n {\n}",
		"func g(k int) {\n\tfor i := range k {\n\t\t_ = i\n\t}\n}",
		"for x := range func(yield func(int) bool) {} {\n\t_ = x\n}",
		"for k := range maps.Keys(map[int]int{}) {\n\t_ = k\n}",
	} {
		err := s.fails(c)
		var ce *CompileError
		if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "Go 1.22") {
			t.Errorf("%q: %v", c, err)
			continue
		}
		want := 1
		if strings.HasPrefix(c, "x :=") || strings.HasPrefix(c, "func") {
			want = 2
		}
		if ce.Line != want {
			t.Errorf("%q: line %d, want %d", c, ce.Line, want)
		}
	}
	// Ranging over slices, maps, strings and channels works.
	if got := s.must("t := 0\nfor _, v := range []int{1, 2, 3} {\n\tt += v\n}\nt"); got != "6" {
		t.Errorf("range over a slice: %q", got)
	}
}

// Assigning the result of a package function that returns nothing is a
// compile error that says so, not the interpreter's reflect panic; the
// same call as a statement runs.
func TestNoValueCallAssigned(t *testing.T) {
	s := newTestSession(t)
	for _, c := range []string{`h := display.HTML("<b>x</b>")`, "x := 1\nvar k = display.Markdown(`y`)"} {
		err := s.fails(c)
		var ce *CompileError
		if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "returns no value, so it cannot be assigned") {
			t.Errorf("%q: %v", c, err)
		}
	}
	s.must(`display.Markdown("y")`)
	if got := s.must("r := math.Sqrt(4)\nr"); got != "2" {
		t.Errorf("a function with a value: %q", got)
	}
}

func TestMinMaxClear(t *testing.T) {
	s := newTestSession(t)
	for cell, want := range map[string]string{
		"min(3, 1, 2)":            "1",
		"max(2.5, 1.5)":           "2.5",
		`min("b", "a")`:           "a",
		"a, b := 4, 9\nmax(a, b)": "9",
	} {
		if got := s.must(cell); got != want {
			t.Errorf("%s = %q, want %q", cell, got, want)
		}
	}
	s.must("m := map[string]int{\"a\": 1}\nsl := []int{1, 2}\nclear(m)\nclear(sl)")
	if got := s.must("len(m)"); got != "0" {
		t.Errorf("len(m) after clear = %q", got)
	}
	if got := s.must("sl"); got != "[0 0]" {
		t.Errorf("sl after clear = %q", got)
	}
}

func TestGoRecoversPanics(t *testing.T) {
	s := newTestSession(t)
	s.must("done := make(chan bool)")
	s.must("Go(func() {\n\tdefer close(done)\n\tpanic(\"in the background\")\n})\n<-done")
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(s.err.String(), "in the background") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(s.err.String(), "in the background") {
		t.Errorf("stderr %q", s.err.String())
	}
	// The package's Go too.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = w
	ch := make(chan struct{})
	Go(func() { defer close(ch); panic("compiled") })
	<-ch
	time.Sleep(50 * time.Millisecond)
	os.Stderr = old
	w.Close()
	buf := make([]byte, 200)
	n, _ := r.Read(buf)
	if !strings.Contains(string(buf[:n]), "compiled") {
		t.Errorf("Go reported %q", buf[:n])
	}
}

func TestIsComplete(t *testing.T) {
	s := newTestSession(t)
	for _, c := range []struct{ code, status, indent string }{
		{"x := 1", "complete", ""},
		{"func f() {", "incomplete", "\t"},
		{"type T struct {\n\tA int", "incomplete", "\t"},
		{"if x {\n\tfor {", "incomplete", "\t\t"},
		{"y := foo(1,", "incomplete", "\t"},
		{"z := 1 +", "incomplete", "\t"},
		{"s := `raw", "incomplete", ""},
		{"x := )", "invalid", ""},
		{"x := := 2", "invalid", ""},
		{"func f() {\n}", "complete", ""},
		{"", "complete", ""},
	} {
		status, indent := s.IsComplete(c.code)
		if status != c.status || indent != c.indent {
			t.Errorf("IsComplete(%q) = %q %q, want %q %q", c.code, status, indent, c.status, c.indent)
		}
	}
}

func TestComplete(t *testing.T) {
	s := newTestSession(t)
	s.must(`type Point struct {
	X, Y  int
	label string
}
func (p *Point) Norm() int { return p.X*p.X + p.Y*p.Y }
pt := &Point{X: 1}
dense := nn.NewDense(3)
arr := nd.Ones(2)`)
	has := func(code string, want ...string) {
		t.Helper()
		got, start := s.Complete(code, len(code))
		for _, w := range want {
			found := false
			for _, g := range got {
				if g == w {
					found = true
				}
			}
			if !found {
				t.Errorf("Complete(%q) = %v (start %d), missing %q", code, got, start, w)
			}
		}
	}
	has("nn.Den", "Dense")
	has("nd.R", "Relu", "RandomNormal", "Reshape")
	has("strings.Spl", "Split", "SplitN")
	has("pt.", "X", "Y", "label", "Norm")
	has("dense.", "Forward", "Initialize", "Hybridize")
	has("arr.Sh", "Shape")
	has("fo", "for")
	has("x := P", "Point")
	has("x := p", "pt", "print")
	has("de", "dense", "defer")
	got, start := s.Complete("y := nd.Rel", len("y := nd.Rel"))
	if start != len("y := nd.") || len(got) == 0 || got[0] != "Relu" {
		t.Errorf("start %d, candidates %v", start, got)
	}
}

func TestDoc(t *testing.T) {
	s := newTestSession(t)
	s.must(`// Twice doubles.
func Twice(x int) int { return 2 * x }
type Box struct{ N int }
// Get returns N.
func (b Box) Get() int { return b.N }
d := nn.NewDense(3)
b := Box{}`)
	for name, want := range map[string]string{
		"nn.NewDense":        "func NewDense(",
		"nn.Dense.Forward":   "Forward",
		"nd.Relu":            "func Relu(x ops.Tensor) *eager.NDArray",
		"eager.RandomNormal": "standard normal",
		"strings.Join":       "func strings.Join([]string, string) string",
		"Twice":              "// Twice doubles.",
		"Box.Get":            "Get returns N",
		"b.Get":              "Get returns N",
		"d.Initialize":       "Initialize",
		"b":                  "var b Box",
	} {
		got, ok := s.Doc(name)
		if !ok || !strings.Contains(got, want) {
			t.Errorf("Doc(%q) = %q %v, want it to hold %q", name, got, ok, want)
		}
	}
	if _, ok := s.Doc("nope.Nothing"); ok {
		t.Errorf("Doc of an unknown name")
	}
}

func TestVarsLookupCellsReset(t *testing.T) {
	s := newTestSession(t)
	s.must("a := 1\nb := \"two\"")
	s.fails("c := undefined")
	s.must("arr := nd.Zeros(2, 3)")
	vars := s.Vars()
	var names []string
	for _, v := range vars {
		names = append(names, v.Name+":"+v.Type)
	}
	if strings.Join(names, " ") != "a:int arr:*eager.NDArray b:string" {
		t.Errorf("vars %v", names)
	}
	if v, ok := s.Lookup("b"); !ok || v.String() != "two" {
		t.Errorf("Lookup(b) = %v %v", v, ok)
	}
	if _, ok := s.Lookup("nope"); ok {
		t.Errorf("Lookup of an unknown name")
	}
	if cells := s.Cells(); len(cells) != 2 || cells[1] != "arr := nd.Zeros(2, 3)" {
		t.Errorf("cells %q", cells)
	}
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if len(s.Vars()) != 0 || len(s.Cells()) != 0 {
		t.Errorf("after Reset: %v %v", s.Vars(), s.Cells())
	}
	s.must("a := 2")
}

func TestRunFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var out strings.Builder
	prog := write("prog.go", `package main

import "fmt"

func double(x int) int { return 2 * x }

func main() {
	fmt.Println("double", double(21))
	fmt.Println(nd.Ones(2))
}
`)
	src, _ := os.ReadFile(prog)
	if err := Run(context.Background(), Options{Stdout: &out}, prog, string(src)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "double 42") || !strings.Contains(out.String(), "<NDArray 2 @cpu(0)>") {
		t.Errorf("output %q", out.String())
	}
	out.Reset()
	if err := Run(context.Background(), Options{Stdout: &out}, "script.go", "x := 3\nfmt.Println(x * x)\n"); err != nil {
		t.Fatal(err)
	}
	if out.String() != "9\n" {
		t.Errorf("script output %q", out.String())
	}
	err := Run(context.Background(), Options{Stdout: &out}, "bad.go", "package main\n\nfunc main() {\n\tundefinedName()\n}\n")
	if err == nil || !strings.HasPrefix(err.Error(), "bad.go:4:2: ") {
		t.Errorf("error %v", err)
	}
	err = Run(context.Background(), Options{Stdout: &out}, "panics.go", "package main\n\nfunc main() {\n\tpanic(\"boom\")\n}\n")
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("error %v", err)
	}
}

// Statements and declarations may share a line, separated by semicolons.
func TestSemicolonsOnOneLine(t *testing.T) {
	s := newTestSession(t)
	for _, c := range []struct{ cell, want string }{
		{"a := 1; b := 2", ""},
		{"a + b", "3"},
		{"c := 3; c * 2", "6"},
		{"type P struct{ X int }; func (p P) Twice() int { return 2 * p.X }; P{4}.Twice()", "8"},
		{`fmt.Sprint(a); fmt.Sprint(b) + "!"`, "2!"},
	} {
		if got := s.must(c.cell); got != c.want {
			t.Errorf("%q gave %q, want %q", c.cell, got, c.want)
		}
	}
}

// The interpreter cannot declare a top-level variable from some index
// expressions; the error says what to write instead, and that works.
func TestIndexDeclarationHint(t *testing.T) {
	s := newTestSession(t)
	s.must("xs := nd.Ones(2, 3).Shape()")
	err := s.fails("n := xs[1]")
	if !strings.Contains(err.Error(), "definition loop: the interpreter cannot declare a variable at a cell's top level from an index expression") {
		t.Errorf("error %q has no hint", err)
	}
	if got := s.must("var n int; n = xs[1]; n"); got != "3" {
		t.Errorf("the hinted form gave %q", got)
	}
}

// TestModelZooInACell builds a model of the zoo without an import and
// runs it on a thumbnail input.
func TestModelZooInACell(t *testing.T) {
	s := newTestSession(t)
	got := s.must(`net, _ := vision.GetModel("resnet18_v1", vision.Options{Classes: 10, Thumbnail: true})
net.Initialize()
net.Forward(nd.RandomUniform(1, 3, 32, 32)).Shape()`)
	if got != "1x10" && got != "[1 10]" {
		t.Errorf("the output's shape displayed %q", got)
	}
}
