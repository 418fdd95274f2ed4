package repl

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

type testSession struct {
	*Session
	t        *testing.T
	out, err *bytes.Buffer
}

func newTestSession(t *testing.T) *testSession {
	t.Helper()
	var out, errb bytes.Buffer
	s, err := NewSession(Options{Stdout: &out, Stderr: &errb})
	if err != nil {
		t.Fatal(err)
	}
	return &testSession{s, t, &out, &errb}
}

// must runs a cell that must succeed and returns what it displays.
func (s *testSession) must(cell string) string {
	s.t.Helper()
	res, err := s.Eval(context.Background(), cell)
	if err != nil {
		s.t.Fatalf("cell %q: %v", cell, err)
	}
	if !res.HasValue && res.Text != "" {
		s.t.Fatalf("cell %q: text %q without a value", cell, res.Text)
	}
	return res.Text
}

func (s *testSession) fails(cell string) error {
	s.t.Helper()
	_, err := s.Eval(context.Background(), cell)
	if err == nil {
		s.t.Fatalf("cell %q: no error", cell)
	}
	return err
}

func TestValuesAcrossCells(t *testing.T) {
	s := newTestSession(t)
	if got := s.must("x := 1"); got != "" {
		t.Errorf("an assignment displayed %q", got)
	}
	if got := s.must("x + 41"); got != "42" {
		t.Errorf("x + 41 = %q", got)
	}
	s.must("x = 5")
	if got := s.must("x"); got != "5" {
		t.Errorf("x = %q", got)
	}
	s.must("var y = x * 2")
	if got := s.must("y"); got != "10" {
		t.Errorf("y = %q", got)
	}
	s.must("const c = 3")
	if got := s.must("c * y"); got != "30" {
		t.Errorf("c*y = %q", got)
	}
	if got := s.must("t := 0\nfor i := 0; i < 4; i++ {\n\tt += i\n}\nif v := t; v > 0 {\n\tt++\n}\nswitch k := t; k {\n}\nt"); got != "7" {
		t.Errorf("three-clause loop: %q", got)
	}
	if got := s.must(`"hello"`); got != "hello" {
		t.Errorf("string displayed as %q", got)
	}
	if got := s.must(`fmt.Errorf("bad %d", 1)`); got != "error: bad 1" {
		t.Errorf("error displayed as %q", got)
	}
}

func TestMixedCell(t *testing.T) {
	s := newTestSession(t)
	got := s.must(`import "strconv"
type point struct{ X, Y int }
func (p point) Sum() int { return p.X + p.Y }
p := point{1, 2}
n, _ := strconv.Atoi("40")
n + p.Sum()`)
	if got != "43" {
		t.Errorf("mixed cell displayed %q", got)
	}
	// re-importing is harmless
	s.must(`import "strconv"
strconv.Itoa(7)`)
}

func TestCompileErrorPosition(t *testing.T) {
	s := newTestSession(t)
	for _, c := range []struct {
		cell      string
		line, col int
	}{
		{"undefinedName + 1", 1, 1},
		{"a := 1\n_ = a\nb := a + \"s\"", 3, 6},
		{"x := 1\nfunc f() int {\n\treturn y\n}", 3, 9},
		{"q := (1 +", 1, 10},
		{"  zz", 1, 3},
	} {
		err := s.fails(c.cell)
		var ce *CompileError
		if !errors.As(err, &ce) {
			t.Errorf("%q: %T %v, want a *CompileError", c.cell, err, err)
			continue
		}
		if ce.Line != c.line || ce.Col != c.col {
			t.Errorf("%q: error at %d:%d (%v), want %d:%d", c.cell, ce.Line, ce.Col, ce, c.line, c.col)
		}
	}
}

func TestDisplayNothingForVoid(t *testing.T) {
	s := newTestSession(t)
	s.must("func v() {}")
	s.must("eager.Seed(3)")
	for _, c := range []string{"v()", "eager.Seed(1)", `fmt.Println("hi")`, "d := nn.NewDense(2)\nd.Initialize()"} {
		if got := s.must(c); got != "" {
			t.Errorf("%q displayed %q", c, got)
		}
	}
	if got := s.must("func two() (int, string) { return 1, \"a\" }\ntwo()"); got != "1\na" {
		t.Errorf("two() displayed %q", got)
	}
	if !strings.Contains(s.out.String(), "hi") {
		t.Errorf("stdout %q", s.out.String())
	}
}
