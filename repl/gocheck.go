package repl

import (
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
)

// checkAsGo refuses what the Go compiler rejects and the interpreter
// accepts or gets wrong, with gc's words: a function with results that
// can end without a return ("missing return"), a call of a variable that
// is not a function (the interpreter would panic in reflect), and an
// assignment of a call whose result count differs from the variables
// (the interpreter would keep the first result).
func (s *Session) checkAsGo(pc *parsedCell) error {
	declared := cellNames(pc)
	var err error
	fail := func(pos token.Pos, msg string) {
		if err == nil {
			p := pc.fset.Position(pos)
			err = &CompileError{Line: p.Line - 1, Col: p.Column, Msg: msg}
		}
	}
	visit := func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body != nil && n.Type.Results != nil && !terminates(n.Body) {
				fail(n.Body.Rbrace, "missing return")
			}
		case *ast.FuncLit:
			if n.Type.Results != nil && !terminates(n.Body) {
				fail(n.Body.Rbrace, "missing return")
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && !declared[id.Name] {
				if v, ok := s.in.in.Globals()[id.Name]; ok && v.IsValid() && v.Kind() != reflect.Func {
					t := s.typeString(s.in, v.Type())
					fail(n.Pos(), fmt.Sprintf("invalid operation: cannot call %s (variable of type %s): %s is not a function", id.Name, t, t))
				}
			}
		case *ast.AssignStmt:
			if n.Tok == token.ASSIGN || n.Tok == token.DEFINE {
				s.checkResultCount(pc, declared, len(n.Lhs), n.Rhs, fail)
			}
		case *ast.ValueSpec:
			if len(n.Values) > 0 {
				s.checkResultCount(pc, declared, len(n.Names), n.Values, fail)
			}
		}
		return err == nil
	}
	pc.inspect(visit)
	return err
}

// checkResultCount fails an assignment of one call to vars variables
// when the call is known to return another count.
func (s *Session) checkResultCount(pc *parsedCell, declared map[string]bool, vars int, rhs []ast.Expr, fail func(token.Pos, string)) {
	if len(rhs) != 1 {
		return
	}
	call, ok := ast.Unparen(rhs[0]).(*ast.CallExpr)
	if !ok {
		return
	}
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		if declared[fun.Name] {
			return
		}
	case *ast.SelectorExpr:
		if id, ok := fun.X.(*ast.Ident); !ok || declared[id.Name] || fmtPrinters[id.Name+"."+fun.Sel.Name] {
			return
		}
	default:
		return
	}
	n := s.resultCount(s.in, call)
	if n <= 0 || n == vars {
		return
	}
	fail(rhs[0].Pos(), fmt.Sprintf("assignment mismatch: %s but %s returns %s", count(vars, "variable"), pc.text(call.Fun), count(n, "value")))
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// cellNames are the names a cell declares anywhere: top-level names,
// locals, parameters.
func cellNames(pc *parsedCell) map[string]bool {
	names := map[string]bool{}
	visit := func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						names[id.Name] = true
					}
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				names[id.Name] = true
			}
		case *ast.Field:
			for _, id := range n.Names {
				names[id.Name] = true
			}
		case *ast.FuncDecl:
			names[n.Name.Name] = true
		case *ast.TypeSpec:
			names[n.Name.Name] = true
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if id, ok := e.(*ast.Ident); ok {
					names[id.Name] = true
				}
			}
		}
		return true
	}
	pc.inspect(visit)
	return names
}

// terminates reports whether a statement is terminating, as the Go
// specification defines it: a function with results must end with one.
func terminates(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return st.Tok == token.GOTO || st.Tok == token.FALLTHROUGH
	case *ast.ExprStmt:
		call, ok := st.X.(*ast.CallExpr)
		if !ok {
			return false
		}
		id, ok := call.Fun.(*ast.Ident)
		return ok && id.Name == "panic"
	case *ast.BlockStmt:
		return len(st.List) > 0 && terminates(st.List[len(st.List)-1])
	case *ast.IfStmt:
		return st.Else != nil && terminates(st.Body) && terminates(st.Else)
	case *ast.LabeledStmt:
		return terminates(st.Stmt)
	case *ast.ForStmt:
		return st.Cond == nil && !breaks(st.Body)
	case *ast.SwitchStmt:
		return clausesTerminate(st.Body, st, true)
	case *ast.TypeSwitchStmt:
		return clausesTerminate(st.Body, st, true)
	case *ast.SelectStmt:
		return clausesTerminate(st.Body, st, false)
	}
	return false
}

// clausesTerminate: every clause ends in a terminating statement, none
// breaks out, and (for switches) there is a default.
func clausesTerminate(body *ast.BlockStmt, st ast.Stmt, needDefault bool) bool {
	hasDefault := false
	for _, c := range body.List {
		var list []ast.Stmt
		switch c := c.(type) {
		case *ast.CaseClause:
			list, hasDefault = c.Body, hasDefault || c.List == nil
		case *ast.CommClause:
			list = c.Body
		}
		if len(list) == 0 || !terminates(list[len(list)-1]) || breaks(&ast.BlockStmt{List: list}) {
			return false
		}
	}
	return hasDefault || !needDefault
}

// breaks reports whether body has a break that leaves the statement
// around it: an unlabeled one outside nested loops, switches and
// selects, or one naming a label that body does not declare.
func breaks(body ast.Node) bool {
	inner := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if l, ok := n.(*ast.LabeledStmt); ok {
			inner[l.Label.Name] = true
		}
		_, lit := n.(*ast.FuncLit)
		return !lit
	})
	found := false
	var walk func(n ast.Node, nested bool)
	walk = func(n ast.Node, nested bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			if found || m == nil {
				return false
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				if m != n {
					walk(m, true)
					return false
				}
			case *ast.BranchStmt:
				if m.Tok == token.BREAK && (m.Label == nil && !nested || m.Label != nil && !inner[m.Label.Name]) {
					found = true
				}
			}
			return true
		})
	}
	walk(body, false)
	return found
}
