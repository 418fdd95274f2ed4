package repl

import (
	"errors"
	"go/ast"
	"go/token"
	"reflect"
	"regexp"
	"strings"
)

// The interpreter words some compile errors its own way, and a few name
// what the user did not write. plainError rewrites them as the Go
// compiler (gc) words them, using the cell's syntax tree at the error's
// position for the names and expressions gc quotes:
//
//	interpreter                                  gc
//	constant definition loop  (x := undefined)   undefined: undefinedThing
//	too many arguments                           too many arguments in call to f
//	undefined selector: Nope                     p.Nope undefined (type P has no field or method Nope)
//	package nn "…/nn" has no symbol Nope         undefined: nn.Nope
//	invalid operation: mismatched types A and B  invalid operation: x + f (mismatched types int and float64)
//	cannot convert "s" to int                    cannot use "s" (untyped string constant) as int value in assignment
//	cannot use type float64 as type int in …     cannot use f (variable of type float64) as int value in assignment
//	invalid argument for len                     invalid argument: x (variable of type int) for built-in len
//
// A message without a rule, or whose expression is not found, is kept.
func (s *Session) plainError(pc *parsedCell, err error) error {
	var ce *CompileError
	if !errors.As(err, &ce) || ce.Line == 0 {
		return err
	}
	off := lineColOffset(pc.src, ce.Line, ce.Col)
	if off < 0 {
		return err
	}
	at := nodesAt(pc, off)
	for _, r := range messageRules {
		m := r.re.FindStringSubmatch(ce.Msg)
		if m == nil {
			continue
		}
		if msg := r.plain(s, pc, at, m); msg != "" {
			return &CompileError{Line: ce.Line, Col: ce.Col, Msg: msg}
		}
		break
	}
	return err
}

// messageRule rewrites a message matching re; plain returns "" when it
// cannot.
type messageRule struct {
	re    *regexp.Regexp
	plain func(s *Session, pc *parsedCell, at []ast.Node, m []string) string
}

var messageRules = []messageRule{
	{regexp.MustCompile(`^(?:constant|variable) definition loop$`), func(s *Session, pc *parsedCell, at []ast.Node, m []string) string {
		return s.definitionLoop(pc)
	}},
	{regexp.MustCompile(`^too many arguments$`), func(s *Session, pc *parsedCell, at []ast.Node, m []string) string {
		if call := innermost[*ast.CallExpr](at); call != nil {
			return "too many arguments in call to " + pc.text(call.Fun)
		}
		return ""
	}},
	{regexp.MustCompile(`^package (\w+) "[^"]*" has no symbol (\w+)$`), func(s *Session, pc *parsedCell, at []ast.Node, m []string) string {
		return "undefined: " + m[1] + "." + m[2]
	}},
	{regexp.MustCompile(`^undefined selector (\S+)\.(\w+)$`), func(s *Session, pc *parsedCell, at []ast.Node, m []string) string {
		if sel := selectorNamed(pc, at, m[2]); sel != nil {
			return "undefined: " + pc.text(sel)
		}
		return ""
	}},
	{regexp.MustCompile(`^undefined (?:selector|method):? (\w+)$`), func(s *Session, pc *parsedCell, at []ast.Node, m []string) string {
		sel := selectorNamed(pc, at, m[1])
		if sel == nil {
			return ""
		}
		if t := s.exprType(sel.X); t != "" {
			return pc.text(sel) + " undefined (type " + t + " has no field or method " + m[1] + ")"
		}
		return pc.text(sel) + " undefined (no field or method " + m[1] + ")"
	}},
	{regexp.MustCompile(`^invalid operation: mismatched types (.+) and (.+)$`), func(s *Session, pc *parsedCell, at []ast.Node, m []string) string {
		if b := innermost[*ast.BinaryExpr](at); b != nil {
			return "invalid operation: " + pc.text(b) + " (mismatched types " + m[1] + " and " + m[2] + ")"
		}
		return ""
	}},
	{regexp.MustCompile(`^cannot convert expression of type (.+) to type (.+)$`), func(s *Session, pc *parsedCell, at []ast.Node, m []string) string {
		call := innermost[*ast.CallExpr](at)
		if call == nil || len(call.Args) != 1 {
			return ""
		}
		what := pc.text(call.Args[0])
		if d := s.describe(call.Args[0], ""); d != "" {
			what += " (" + d + ")"
		}
		return "cannot convert " + what + " to type " + m[2]
	}},
	{regexp.MustCompile(`^cannot convert (.+) to (.+)$`), func(s *Session, pc *parsedCell, at []ast.Node, m []string) string {
		x := innermost[ast.Expr](at)
		if x == nil || pc.text(x) != m[1] {
			return ""
		}
		what := pc.text(x)
		if d := s.describe(x, ""); d != "" {
			what += " (" + d + ")"
		}
		if call, ok := parentOf(at, x).(*ast.CallExpr); ok && len(call.Args) == 1 && s.isTypeName(call.Fun) {
			return "cannot convert " + what + " to type " + m[2]
		}
		if ctx := useContext(pc, at, x); ctx != "" {
			return "cannot use " + what + " as " + m[2] + " value in " + ctx
		}
		return ""
	}},
	{regexp.MustCompile(`^cannot use type (.+) as type (\S+)`), func(s *Session, pc *parsedCell, at []ast.Node, m []string) string {
		x := innermost[ast.Expr](at)
		ctx := useContext(pc, at, x)
		if x == nil || ctx == "" {
			return ""
		}
		return "cannot use " + pc.text(x) + " (" + s.describe(x, m[1]) + ") as " + m[2] + " value in " + ctx
	}},
	{regexp.MustCompile(`^invalid argument for (\w+)$`), func(s *Session, pc *parsedCell, at []ast.Node, m []string) string {
		call := innermost[*ast.CallExpr](at)
		if call == nil || len(call.Args) == 0 {
			return ""
		}
		what := pc.text(call.Args[0])
		if d := s.describe(call.Args[0], ""); d != "" {
			what += " (" + d + ")"
		}
		return "invalid argument: " + what + " for built-in " + m[1]
	}},
}

// definitionLoop explains the interpreter's "definition loop", which it
// gives when it cannot find the type of a variable declared at a cell's
// top level: the right-hand side names something undefined, or it is
// an index expression (yaegi issue 1437). The cell's statements are
// compiled again as a function's body, where the interpreter reports
// the real error; if there is none, the index expression is the cause.
func (s *Session) definitionLoop(pc *parsedCell) (msg string) {
	isStmt := func(c chunk) bool { return c.kind == chunkStmt }
	probe := "func __hgprobe() {\n" + blank(pc.src, pc.chunks, isStmt) + "\n}"
	snap := snapshot(s.in.in)
	defer snap.restore()
	hint := "constant definition loop" + definitionLoopHint
	defer func() {
		if recover() != nil {
			msg = hint // the interpreter crashed on the probe
		}
	}()
	if _, err := s.in.in.Compile(probe); err != nil {
		return stripPos(err.Error())
	}
	return hint
}

// definitionLoopHint explains the interpreter's "definition loop" error
// for a variable declared at a cell's top level from an index
// expression, such as n := x.Shape()[0].
const definitionLoopHint = ": the interpreter cannot declare a variable at a cell's top level from an " +
	"index expression (x := s[i]); declare it first and assign it (var n int; n = s[i]), or index inside a function"

// nodesAt returns the nodes of the cell that hold the cell offset off,
// outermost first.
func nodesAt(pc *parsedCell, off int) []ast.Node {
	var path []ast.Node
	visit := func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if pc.offset(n.Pos()) <= off && off < pc.offset(n.End()) {
			path = append(path, n)
			return true
		}
		return false
	}
	pc.inspect(visit)
	return path
}

// innermost returns the innermost node of type T in a path.
func innermost[T ast.Node](path []ast.Node) T {
	var zero T
	for i := len(path) - 1; i >= 0; i-- {
		if n, ok := path[i].(T); ok {
			return n
		}
	}
	return zero
}

// parentOf returns the node right outside n in a path.
func parentOf(path []ast.Node, n ast.Node) ast.Node {
	for i := len(path) - 1; i > 0; i-- {
		if path[i] == n {
			return path[i-1]
		}
	}
	return nil
}

// selectorNamed finds the selector .name in the innermost node of a path
// that has one, or else anywhere in the cell.
func selectorNamed(pc *parsedCell, path []ast.Node, name string) *ast.SelectorExpr {
	var found *ast.SelectorExpr
	for _, st := range pc.stmts {
		path = append([]ast.Node{st}, path...)
	}
	for _, d := range pc.decls {
		path = append([]ast.Node{d}, path...)
	}
	for i := len(path) - 1; i >= 0 && found == nil; i-- {
		ast.Inspect(path[i], func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == name && found == nil {
				found = sel
			}
			return found == nil
		})
	}
	return found
}

// useContext says where gc would say a value x is used: "assignment",
// "variable declaration", "argument to f", "return statement".
func useContext(pc *parsedCell, path []ast.Node, x ast.Expr) string {
	switch p := parentOf(path, x).(type) {
	case *ast.AssignStmt:
		return "assignment"
	case *ast.ValueSpec:
		return "variable declaration"
	case *ast.ReturnStmt:
		return "return statement"
	case *ast.CallExpr:
		if p.Fun != x {
			return "argument to " + pc.text(p.Fun)
		}
	}
	return ""
}

// describe says what x is, as gc does in parentheses: "untyped string
// constant", "variable of type int"; typ is its type when known.
func (s *Session) describe(x ast.Expr, typ string) string {
	if lit, ok := x.(*ast.BasicLit); ok {
		kind := map[token.Token]string{token.INT: "int", token.FLOAT: "float", token.IMAG: "complex", token.CHAR: "rune", token.STRING: "string"}[lit.Kind]
		return "untyped " + kind + " constant"
	}
	if typ == "" {
		typ = s.exprType(x)
	}
	if typ == "" {
		return ""
	}
	if _, ok := x.(*ast.Ident); ok {
		return "variable of type " + typ
	}
	return "value of type " + typ
}

// exprType names the type of x when it is a session variable or a field
// chain of one (p, net.Fc1).
func (s *Session) exprType(x ast.Expr) string {
	v, ok := s.chainValue(s.in, x)
	if !ok || !v.IsValid() {
		return ""
	}
	return s.typeString(s.in, v.Type())
}

// isTypeName reports whether e names a type: a predeclared one, one the
// session declared, or a package's.
func (s *Session) isTypeName(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		if intTypes[e.Name] || basicTypes[e.Name] {
			return true
		}
		_, ok := s.latestDecl(declKey{"type", e.Name})
		return ok
	case *ast.SelectorExpr:
		if id, ok := e.X.(*ast.Ident); ok {
			if path, ok := s.in.imported[id.Name]; ok {
				v, ok := s.exportsOf(path)[e.Sel.Name]
				return ok && v.Kind() != reflect.Func
			}
		}
	case *ast.ArrayType, *ast.MapType, *ast.StarExpr, *ast.ChanType, *ast.FuncType, *ast.InterfaceType, *ast.StructType:
		return true
	}
	return false
}

// text is the source of a node of the cell.
func (pc *parsedCell) text(n ast.Node) string {
	start, end := pc.offset(n.Pos()), pc.offset(n.End())
	if start < 0 || end > len(pc.src) || start > end {
		return ""
	}
	return strings.TrimSpace(pc.src[start:end])
}
