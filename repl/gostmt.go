package repl

import (
	"fmt"
	"go/ast"
	"strings"
)

// A panic in a goroutine ends a Go program, and the interpreter's
// goroutines are the process's own: `go func() { panic("boom") }()` in a
// cell would end the session. So every go statement of a cell, at any
// depth (in functions, methods and closures the cell declares), is
// rewritten to start its goroutine through the session, which recovers
// a panic and reports it on the session's stderr as "panic in a
// goroutine started by cell N: boom". Go's semantics are kept: the
// function value and the arguments are evaluated when the go statement
// runs, in order, and only the call runs in the new goroutine:
//
//	go f(a, b)
//
// becomes
//
//	__hgrt.Go(func() func() { __hgf1 := f; __hga1_0 := a; __hga1_1 := b; return func() { __hgf1(__hga1_0, __hga1_1) } }())
//
// (a builtin, go println(x), keeps its name in the call). N is the cell
// that runs when the go statement runs. Columns after a go statement on
// its line move in error positions.

// rewriteGo rewrites the go statements of a cell.
func (s *Session) rewriteGo(pc *parsedCell) (*parsedCell, error) {
	var edits []edit
	k := 0
	visit := func(n ast.Node) bool {
		g, ok := n.(*ast.GoStmt)
		if !ok {
			return true
		}
		k++
		call := g.Call
		fn := fmt.Sprintf("__hgf%d", k)
		var args []string
		for i := range call.Args {
			args = append(args, fmt.Sprintf("__hga%d_%d", k, i))
		}
		if len(call.Args) == 1 {
			if c, ok := ast.Unparen(call.Args[0]).(*ast.CallExpr); ok {
				if n := s.resultCount(s.in, c); n > 1 {
					args = nil // go f(g()) with several results
					for i := 0; i < n; i++ {
						args = append(args, fmt.Sprintf("__hga%d_%d", k, i))
					}
				}
			}
		}
		inner := strings.Join(args, ", ")
		if call.Ellipsis.IsValid() {
			inner += "..."
		}
		_, builtin := builtinResults[funName(call.Fun)]
		callee := fn
		if builtin {
			callee = funName(call.Fun)
		}
		suffix := "; return func() { " + callee + "(" + inner + ") } }())"
		open := pc.offset(call.Lparen)
		goStart := pc.offset(g.Pos())
		switch {
		case builtin && len(call.Args) == 0:
			edits = append(edits, edit{goStart, pc.offset(call.Rparen) + 1, "__hgrt.Go(func() func() { return func() { " + callee + "() } }())"})
			return true
		case builtin:
			edits = append(edits, edit{goStart, pc.offset(call.Args[0].Pos()), "__hgrt.Go(func() func() { " + strings.Join(args[:len(args)-len(call.Args)+1], ", ") + " := "})
		default:
			edits = append(edits, edit{goStart, pc.offset(call.Fun.Pos()), "__hgrt.Go(func() func() { " + fn + " := "})
			if len(call.Args) == 0 {
				edits = append(edits, edit{open, pc.offset(call.Rparen) + 1, suffix})
				return true
			}
			edits = append(edits, edit{pc.offset(call.Fun.End()), pc.offset(call.Args[0].Pos()), "; " + strings.Join(args[:len(args)-len(call.Args)+1], ", ") + " := "})
		}
		for i := 1; i < len(call.Args); i++ {
			edits = append(edits, edit{pc.offset(call.Args[i-1].End()), pc.offset(call.Args[i].Pos()), "; " + args[i] + " := "})
		}
		edits = append(edits, edit{pc.offset(call.Args[len(call.Args)-1].End()), pc.offset(call.Rparen) + 1, suffix})
		return true
	}
	pc.inspect(visit)
	return pc.edit(edits)
}

// funName is the name of a called identifier, or "".
func funName(e ast.Expr) string {
	if id, ok := ast.Unparen(e).(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
