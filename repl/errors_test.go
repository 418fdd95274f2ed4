package repl

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// A cell that fails to compile leaves the session as it was: the names
// it declared are undefined afterwards, a name it declared again keeps
// its old meaning, and the next cells run normally.
func TestFailedCellLeavesNothing(t *testing.T) {
	for _, c := range []struct {
		cell string
		gone []string // names that must be undefined afterwards
	}{
		{"bad := nn.NewDense(3, nn.DenseOptions{Nope: 1})", []string{"bad"}},
		{"bad := undefinedThing", []string{"bad"}},
		{"a := 1\nbad := undefinedThing", []string{"a", "bad"}},
		{"func g() int { return nope }", []string{"g"}},
		{"type T2 struct{ A int }\nfunc (t T2) M() int { return nope }", []string{"T2"}},
		{"func (p P) M() int { return nope }\nq := 1", []string{"q"}},
		{"func f() int { return nope }", nil},
	} {
		s := newTestSession(t)
		s.must("x := 41\ntype P struct{ A int }\np := P{1}\nfunc f() int { return 7 }")
		s.fails(c.cell)
		for _, name := range c.gone {
			if err := s.fails(name); !strings.Contains(err.Error(), "undefined: "+name) {
				t.Errorf("after %q, %s: %v, want undefined: %s", c.cell, name, err, name)
			}
		}
		if got := s.must("x + 1"); got != "42" {
			t.Errorf("after %q, x + 1 = %q", c.cell, got)
		}
		if got := s.must("f()"); got != "7" {
			t.Errorf("after %q, f() = %q", c.cell, got)
		}
		// A method that failed to compile is not half attached: declaring
		// it properly works.
		if got := s.must("func (p P) M() int { return p.A + 1 }\np.M()"); got != "2" {
			t.Errorf("after %q, p.M() = %q", c.cell, got)
		}
		if vars := s.Vars(); len(vars) == 0 {
			t.Errorf("after %q, no variables", c.cell)
		}
	}
}

// In a pasted block each statement is a cell: a later line using a
// name whose declaration failed says it is undefined.
func TestFailedDeclarationThenUse(t *testing.T) {
	s := newTestSession(t)
	s.must("x := 1")
	s.fails("bad := nn.NewDense(3, nn.DenseOptions{Nope: 1})")
	for _, cell := range []string{"fmt.Println(bad)", "z := bad", "bad.Initialize()"} {
		if err := s.fails(cell); !strings.Contains(err.Error(), "undefined: bad") {
			t.Errorf("%q: %v, want undefined: bad", cell, err)
		}
	}
	// A cell is compiled whole, as Go compiles a file: an error anywhere
	// runs none of it.
	err := s.fails("x = 2\nbad := undefinedThing")
	if !strings.Contains(err.Error(), "2:1: undefined: undefinedThing") {
		t.Errorf("error %v", err)
	}
	if got := s.must("x"); got != "1" {
		t.Errorf("x = %q after a cell that did not compile", got)
	}
}

// The interpreter's messages are worded as the Go compiler words them.
func TestMessagesInGoTerms(t *testing.T) {
	s := newTestSession(t)
	s.must(`x := 1
f := 2.5
s := []int{1, 2}
func two() (int, int) { return 1, 2 }
type P struct{ A int }
p := P{1}
d := nn.NewDense(2)`)
	for _, c := range []struct{ cell, want string }{
		{"bad := undefinedThing", "1:1: undefined: undefinedThing"},
		{"y := undefinedThing + 1", "1:1: undefined: undefinedThing"},
		{"undefinedThing", "1:1: undefined: undefinedThing"},
		{"w = 3", "1:1: undefined: w"},
		{"two(1)", "1:5: too many arguments in call to two"},
		{`strings.Repeat("a")`, "1:1: not enough arguments in call to strings.Repeat"},
		{`var z int = "s"`, `1:13: cannot use "s" (untyped string constant) as int value in variable declaration`},
		{`x = "s"`, `1:5: cannot use "s" (untyped string constant) as int value in assignment`},
		{`y := nd.Zeros("a")`, `1:15: cannot use "a" (untyped string constant) as int value in argument to nd.Zeros`},
		{"var y int\ny = f", "2:5: cannot use f (variable of type float64) as int value in assignment"},
		{`strings.Repeat("a", f)`, "1:21: cannot use f (variable of type float64) as int value in argument to strings.Repeat"},
		{`y := int("s")`, `1:10: cannot convert "s" (untyped string constant) to type int`},
		{"p.Nope()", "1:1: p.Nope undefined (type P has no field or method Nope)"},
		{"d.Nope()", "1:1: d.Nope undefined (type *nn.Dense has no field or method Nope)"},
		{"q := p.Nope", "1:12: p.Nope undefined (type P has no field or method Nope)"},
		{"nn.Nope(1)", "1:1: undefined: nn.Nope"},
		{"y := nn.Nope(1)", "1:6: undefined: nn.Nope"},
		{"x + f", "1:1: invalid operation: x + f (mismatched types int and float64)"},
		{"y := x + f", "1:6: invalid operation: x + f (mismatched types int and float64)"},
		{`if x == "a" {}`, `1:4: invalid operation: x == "a" (mismatched types int and untyped string)`},
		{"y := len(x)", "1:10: invalid argument: x (variable of type int) for built-in len"},
		{"x()", "1:1: invalid operation: cannot call x (variable of type int): int is not a function"},
		{"a := two()", "1:6: assignment mismatch: 1 variable but two returns 2 values"},
		{"a, b, c := two()", "1:12: assignment mismatch: 3 variables but two returns 2 values"},
		{"func h() int {\n}", "2:1: missing return"},
		{"func h(b bool) int {\n\tif b {\n\t\treturn 1\n\t}\n}", "5:1: missing return"},
		{"func h() int {\n\tfor {\n\t\tbreak\n\t}\n}", "5:1: missing return"},
		{"n := s[0]\nm := n + undefinedThing", "2:10: undefined: undefinedThing"},
	} {
		err := s.fails(c.cell)
		if err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.cell, err, c.want)
		}
		if got := s.must("x"); got != "1" {
			t.Fatalf("after %q, x = %q", c.cell, got)
		}
	}
	// What Go accepts stays accepted.
	for _, cell := range []string{
		"func h1(b bool) int { if b { return 1 } else { panic(2) } }",
		"func h2() int { for {} }",
		"func h3(x int) int { switch x { case 1: return 1; default: return 2 } }",
		"func h4() int { L: for { for { break L } }; return 1 }",
		"a, b := two()",
		"g := func() int { return 1 }\ng()",
		"n := s[0]",
	} {
		s.must(cell)
	}
}

// A runtime error raised inside the interpreter is reported as its bug,
// with the cell; the user's panics read as panics.
func TestInternalErrorsAreTheInterpreters(t *testing.T) {
	s := newTestSession(t)
	s.must("x := 1")
	cell := "v, ok := map[int]int{}[1]" // the interpreter fails on its own "nil type"
	err := s.fails(cell)
	var ie *InternalError
	if !errors.As(err, &ie) {
		t.Fatalf("%q: %T %v, want an *InternalError", cell, err, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "internal error in hybridgo's interpreter (please report it, with the cell): ") || !strings.Contains(msg, "\n\t"+cell) {
		t.Errorf("message %q", msg)
	}
	if got := s.must("x + 1"); got != "2" {
		t.Errorf("after the internal error, x + 1 = %q", got)
	}
	for _, c := range []struct{ cell, want string }{
		{"var sl []int\n_ = sl[3]", "index out of range"},
		{`panic("x")`, "panic: x"},
		{"nd.Add(nd.Ones(2), nd.Ones(3))", "do not broadcast"},
		{"z := 0\n_ = 1 / z", "integer divide by zero"},
		{"var m map[string]int\nm[\"a\"] = 1", "assignment to entry in nil map"},
		{"os.Exit(3)", "os.Exit(3)"},
	} {
		err := s.fails(c.cell)
		var pe *PanicError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %T %v, want a *PanicError with %q", c.cell, err, err, c.want)
		}
	}
	if got := s.must("x"); got != "1" {
		t.Errorf("x = %q", got)
	}
}

func TestRaiser(t *testing.T) {
	stack := "goroutine 1 [running]:\nruntime/debug.Stack()\n\t/x.go:1\npanic({0x1})\n\t/p.go:2\n" +
		"runtime.goPanicIndex(0x5, 0x5)\n\t/r.go:3\ngithub.com/traefik/yaegi/interp.(*Interpreter).Globals(0x1)\n\t/s.go:248\n"
	if got := raiser(stack); got != "github.com/traefik/yaegi/interp.(*Interpreter).Globals" {
		t.Errorf("raiser = %q", got)
	}
	if raiser("no panic here") != "" {
		t.Error("a stack without a panic has a raiser")
	}
}

// A goroutine started by a cell that panics is reported on the session's
// stderr, naming the cell; the session goes on. The go statement's
// function and arguments are evaluated when it runs. (Each report is
// awaited before the next cell: the interpreter's compiling a cell races
// with a goroutine unwinding interpreted frames.)
func TestGoroutinePanicsAreReported(t *testing.T) {
	s := newTestSession(t)
	s.must("x := 1")                        // cell 1
	s.must(`go func() { panic("boom") }()`) // cell 2
	s.waitStderr("panic in a goroutine started by cell 2: boom\n")
	s.must("done := make(chan int, 10)") // cell 3
	s.must(`func work(n int, ch chan int) {
	ch <- n
	if n == 2 {
		panic(fmt.Sprint("bad ", n))
	}
}`) // cell 4
	if got := s.must("for i := 0; i < 3; i++ { go work(i, done) }\n<-done + <-done + <-done"); got != "3" {
		t.Errorf("the goroutines sent %q", got)
	}
	s.waitStderr("panic in a goroutine started by cell 5: bad 2\n")
	if got := s.must("v := 5\ngo work(v, done)\nv = 7\n<-done"); got != "5" {
		t.Errorf("go work(v, done) saw v = %q, want the value when the go statement ran", got)
	}
	s.must(`go panic("direct")`) // cell 7
	s.waitStderr("panic in a goroutine started by cell 7: direct\n")
	if got := s.must("xs := []int{1, 2}\nfunc sum(ch chan int, xs ...int) { t := 0; for _, x := range xs { t += x }; ch <- t }\ngo sum(done, xs...)\n<-done"); got != "3" {
		t.Errorf("variadic go: %q", got)
	}
	s.must(`func spawn() {
	go func() {
		var m map[string]int
		m["a"] = 1
	}()
}
spawn()`) // cell 9
	s.waitStderr("panic in a goroutine started by cell 9: assignment to entry in nil map\n")
	if got := s.must("go func(a,\n\tb int,\n) { done <- a + b }(3,\n\t4,\n)\n<-done"); got != "7" {
		t.Errorf("multi-line go: %q", got)
	}
	if got := s.must("x"); got != "1" {
		t.Errorf("x = %q", got)
	}
}

// waitStderr waits until the session's stderr ends with want.
func (s *testSession) waitStderr(want string) {
	s.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.HasSuffix(s.err.String(), want) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.HasSuffix(s.err.String(), want) {
		s.t.Fatalf("stderr %q, want it to end with %q", s.err.String(), want)
	}
}
