package repl

import (
	"fmt"
	"go/ast"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// The interpreter loses variables declared from one multi-valued
// expression inside a block of a top-level statement: in
//
//	for _, f := range files {
//		data, err := os.ReadFile(f)
//		…
//	}
//
// typed in a cell, data is "undefined" (a, b := 1, 2 is fine, and so is
// the same code inside a function). Such a statement is run as
// func() { … }(), which changes nothing else: the names it declares are
// local to its blocks anyway, and it sees and sets the session's
// variables as before. Error positions are mapped back to the cell.

// wrapPrefix and wrapSuffix surround a statement that needs it.
const (
	wrapPrefix = "func() {"
	wrapSuffix = "}()"
)

// insertion is text added to the statements handed to the interpreter:
// n bytes at offset at of the original text.
type insertion struct{ at, n int }

// wrapStmts wraps the statements of text (the statement text of pc, as
// made by blank, after a header of header bytes) that need it, and
// returns the new text with the insertions it made, in order.
func wrapStmts(pc *parsedCell, text string, header int) (string, []insertion) {
	var ins []insertion
	for _, st := range pc.stmts {
		if !needsWrap(st) {
			continue
		}
		start, end := header+pc.offset(st.Pos()), header+pc.offset(st.End())
		if start < 0 || end > len(text) || strings.TrimSpace(text[start:end]) == "" {
			continue // not among the statements handed over
		}
		ins = append(ins, insertion{start, len(wrapPrefix)}, insertion{end, len(wrapSuffix)})
	}
	if len(ins) == 0 {
		return text, nil
	}
	sort.SliceStable(ins, func(i, j int) bool { return ins[i].at < ins[j].at })
	var b strings.Builder
	last := 0
	for i, in := range ins {
		b.WriteString(text[last:in.at])
		if i%2 == 0 {
			b.WriteString(wrapPrefix)
		} else {
			b.WriteString(wrapSuffix)
		}
		last = in.at
	}
	b.WriteString(text[last:])
	return b.String(), ins
}

// needsWrap reports whether a top-level statement declares variables from
// one multi-valued expression inside one of its blocks (function
// literals aside, which the interpreter handles).
func needsWrap(st ast.Stmt) bool {
	switch st.(type) {
	case *ast.BlockStmt, *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt,
		*ast.TypeSwitchStmt, *ast.SelectStmt, *ast.LabeledStmt:
	default:
		return false
	}
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			found = n.Tok == token.DEFINE && len(n.Lhs) > 1 && len(n.Rhs) == 1
		case *ast.ValueSpec:
			found = len(n.Names) > 1 && len(n.Values) == 1
		}
		return !found
	})
	return found
}

// unwrapError maps the position in an interpreter error about the wrapped
// text back to the text before wrapping.
func unwrapError(err error, wrapped string, ins []insertion) error {
	if err == nil || len(ins) == 0 || passThrough(err) {
		return err
	}
	msg := err.Error()
	m := posRE.FindStringSubmatch(msg)
	if m == nil {
		return err
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	off := lineColOffset(wrapped, line, col)
	if off < 0 {
		return err
	}
	// Back to an offset of the original text.
	delta := 0
	orig := -1
	for _, in := range ins {
		if off < in.at+delta {
			break
		}
		if off < in.at+delta+in.n {
			orig = in.at // inside the added text: point at the statement
			break
		}
		delta += in.n
	}
	if orig < 0 {
		orig = off - delta
	}
	l, c := offsetLineCol(unwrap(wrapped, ins), orig)
	return fmt.Errorf("%d:%d: %s", l, c, msg[len(m[0]):])
}

// unwrap removes the insertions from the wrapped text.
func unwrap(wrapped string, ins []insertion) string {
	var b strings.Builder
	delta, last := 0, 0
	for _, in := range ins {
		b.WriteString(wrapped[last : in.at+delta])
		last = in.at + delta + in.n
		delta += in.n
	}
	b.WriteString(wrapped[last:])
	return b.String()
}

// lineColOffset returns the byte offset of a 1-based line and column in
// text, or -1.
func lineColOffset(text string, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	off += col - 1
	if off < 0 || off > len(text) {
		return -1
	}
	return off
}

// offsetLineCol returns the 1-based line and column of an offset of text.
func offsetLineCol(text string, off int) (line, col int) {
	off = min(off, len(text))
	line = 1 + strings.Count(text[:off], "\n")
	return line, off - strings.LastIndex(text[:off], "\n")
}
