package repl

import (
	"errors"
	"strings"
	"testing"
)

// Variables declared from one multi-valued expression inside a block of a
// top-level statement are defined, and the statement still reads and
// sets the session's variables.
func TestMultiValueDefineInBlocks(t *testing.T) {
	s := newTestSession(t)
	s.must(`total := 0
words := []string{"7", "x", "8"}`)
	s.must(`for _, w := range words {
	n, err := strconv.Atoi(w)
	if err != nil {
		continue
	}
	total += n
}`)
	if got := s.must("total"); got != "15" {
		t.Errorf("total = %s, want 15", got)
	}
	for _, c := range []struct{ cell, want string }{
		{`got := ""
if true { m := map[string]int{"a": 1}; v, ok := m["a"]; got = fmt.Sprint(v, ok) }
got`, "1 true"},
		{`var x any = 2.5
got = ""
switch { default: f, ok := x.(float64); got = fmt.Sprint(f, ok) }
got`, "2.5 true"},
		{`got = ""
{ var a, b = strconv.Atoi("4"); got = fmt.Sprint(a, b) }
got`, "4 <nil>"},
		{`got = ""
outer:
for i := 0; i < 3; i++ {
	q, r := i/2, i%2
	k, _ := strconv.Atoi(fmt.Sprint(q + r))
	if i == 2 {
		break outer
	}
	got += fmt.Sprint(k)
}
got`, "01"},
	} {
		if got := s.must(c.cell); got != c.want {
			t.Errorf("cell %q displayed %q, want %q", c.cell, got, c.want)
		}
	}
	// Declared inside the block, the names stay there.
	err := s.fails(`if true { n, _ := strconv.Atoi("1"); _ = n }
n`)
	if !strings.Contains(err.Error(), "undefined: n") {
		t.Errorf("a block's variable leaked out: %v", err)
	}
}

// Errors in a wrapped statement point at the cell's own lines and columns.
func TestWrappedStatementErrorPositions(t *testing.T) {
	s := newTestSession(t)
	for _, c := range []struct {
		cell      string
		line, col int
		msg       string
	}{
		{"for _, w := range nowhere {\n\tn, err := strconv.Atoi(w)\n\t_, _ = n, err\n}", 1, 19, "undefined: nowhere"},
		{"x := 1\nfor i := 0; i < 2; i++ {\n\tn, err := strconv.Atoi(\"1\")\n\t_ = n + \"s\"\n\t_ = err\n}", 4, 6, "mismatched types"},
	} {
		err := s.fails(c.cell)
		var ce *CompileError
		if !errors.As(err, &ce) {
			t.Errorf("cell %q: %T %v, want a *CompileError", c.cell, err, err)
			continue
		}
		if ce.Line != c.line || ce.Col != c.col || !strings.Contains(ce.Msg, c.msg) {
			t.Errorf("cell %q: error at %d:%d %q, want %d:%d %q", c.cell, ce.Line, ce.Col, ce.Msg, c.line, c.col, c.msg)
		}
	}
}

func TestNeedsWrapAndUnwrap(t *testing.T) {
	text := "a\nfor { x, y := f() }\nb"
	ins := []insertion{{2, len(wrapPrefix)}, {21, len(wrapSuffix)}}
	wrapped := "a\n" + wrapPrefix + "for { x, y := f() }" + wrapSuffix + "\nb"
	if got := unwrap(wrapped, ins); got != text {
		t.Errorf("unwrap = %q", got)
	}
	// Line 2, column 1+len(prefix)+4 in the wrapped text is "{" at 2:5.
	err := unwrapError(errors.New("2:13: boom"), wrapped, ins)
	if err.Error() != "2:5: boom" {
		t.Errorf("unwrapError = %v", err)
	}
	// A position inside the added text points at the statement.
	if err := unwrapError(errors.New("2:3: boom"), wrapped, ins); err.Error() != "2:1: boom" {
		t.Errorf("unwrapError inside the prefix = %v", err)
	}
}
