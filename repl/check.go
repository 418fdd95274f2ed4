package repl

import (
	"go/ast"
	"go/token"
	"reflect"
	"sort"
	"strings"

	"github.com/traefik/yaegi/stdlib"

	"github.com/hybridgo/hybridgo/internal/symbols"
)

// checkUnsupported refuses what the interpreter (frozen at Go 1.22)
// would crash on: ranging over an integer or over a function.
func (s *Session) checkUnsupported(pc *parsedCell) error {
	var err error
	ints := map[string]bool{} // names assigned integer-looking values in the cell
	visit := func(n ast.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Rhs) == 1 {
				if e := s.noValueCall(pc, n.Rhs[0]); e != nil {
					err = e
					return false
				}
			}
			if len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok && s.isIntExpr(n.Rhs[i], ints) {
						ints[id.Name] = true
					}
				}
			}
		case *ast.ValueSpec:
			if len(n.Values) == 1 {
				if e := s.noValueCall(pc, n.Values[0]); e != nil {
					err = e
					return false
				}
			}
			for i, id := range n.Names {
				if i < len(n.Values) && s.isIntExpr(n.Values[i], ints) {
					ints[id.Name] = true
				}
				if t, ok := n.Type.(*ast.Ident); ok && intTypes[t.Name] {
					ints[id.Name] = true
				}
			}
		case *ast.Field:
			if t, ok := n.Type.(*ast.Ident); ok && intTypes[t.Name] {
				for _, id := range n.Names {
					ints[id.Name] = true
				}
			}
		case *ast.RangeStmt:
			what := ""
			switch {
			case s.isIntExpr(n.X, ints):
				what = "an integer"
			case s.isFuncExpr(n.X):
				what = "a function"
			}
			if what != "" {
				pos := pc.fset.Position(n.For)
				err = &CompileError{Line: pos.Line - 1, Col: pos.Column,
					Msg: "range over " + what + " needs Go 1.23 and the interpreter follows Go 1.22: write a three-clause loop (for i := 0; i < n; i++) or call the function with a yield func"}
			}
		}
		return true
	}
	pc.inspect(visit)
	return err
}

// noValueCall returns an error when e calls a package's function that
// returns nothing (display.HTML, say), whose value is being used: the
// interpreter would fail on it with a message about reflect.
func (s *Session) noValueCall(pc *parsedCell, e ast.Expr) error {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return nil
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return nil
	}
	if _, imported := s.in.imported[pkg.Name]; !imported || s.isVar(s.in, pkg.Name) || s.resultCount(s.in, call) != 0 {
		return nil
	}
	pos := pc.fset.Position(call.Pos())
	return &CompileError{Line: pos.Line - 1, Col: pos.Column,
		Msg: pkg.Name + "." + sel.Sel.Name + "(...) returns no value, so it cannot be assigned: call it as a statement"}
}

var intTypes = map[string]bool{"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true, "byte": true, "rune": true}

// isIntExpr reports whether e is certainly an integer: a literal, len or
// cap, a conversion to an integer type, arithmetic on those, a name
// given such a value, or an integer variable of the session.
func (s *Session) isIntExpr(e ast.Expr, ints map[string]bool) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.INT
	case *ast.ParenExpr:
		return s.isIntExpr(e.X, ints)
	case *ast.BinaryExpr:
		switch e.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
			return false
		}
		return s.isIntExpr(e.X, ints) && s.isIntExpr(e.Y, ints) ||
			(e.Op == token.SHL || e.Op == token.SHR) && s.isIntExpr(e.X, ints)
	case *ast.UnaryExpr:
		return e.Op == token.SUB && s.isIntExpr(e.X, ints)
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok {
			return id.Name == "len" || id.Name == "cap" || intTypes[id.Name]
		}
	case *ast.Ident:
		if ints[e.Name] {
			return true
		}
		if v, ok := s.in.in.Globals()[e.Name]; ok && v.IsValid() {
			switch v.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
				reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
				return true
			}
		}
	}
	return false
}

// rangeFuncs are standard functions that return iterators.
var rangeFuncs = map[string]bool{
	"maps.Keys": true, "maps.Values": true, "maps.All": true, "slices.All": true, "slices.Values": true,
	"slices.Backward": true, "slices.Chunk": true, "strings.SplitSeq": true, "strings.FieldsSeq": true,
	"strings.Lines": true, "bytes.SplitSeq": true, "bytes.Lines": true, "bytes.FieldsSeq": true,
}

func (s *Session) isFuncExpr(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.FuncLit:
		return true
	case *ast.ParenExpr:
		return s.isFuncExpr(e.X)
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && rangeFuncs[id.Name+"."+sel.Sel.Name] {
				return true
			}
		}
	case *ast.Ident:
		if v, ok := s.in.in.Globals()[e.Name]; ok && v.IsValid() && v.Kind() == reflect.Func {
			return true
		}
		if d, ok := s.funcDecl(e.Name); ok && d.Recv == nil {
			return true
		}
	}
	return false
}

// funcDecl returns the latest declaration of a function (or, with
// "T.M", a method) of the session.
func (s *Session) funcDecl(name string) (*ast.FuncDecl, bool) {
	kind := "func"
	if strings.Contains(name, ".") {
		kind = "method"
	}
	history := s.history
	if s.current != nil {
		history = append(history[:len(history):len(history)], &record{cell: s.current})
	}
	for i := len(history) - 1; i >= 0; i-- {
		r := history[i]
		for _, d := range r.cell.decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || r.dropped[r.cell.chunkAt(fd.Pos())] {
				continue
			}
			if kind == "func" && fd.Recv == nil && fd.Name.Name == name ||
				kind == "method" && fd.Recv != nil && recvTypeName(fd.Recv.List[0].Type)+"."+fd.Name.Name == name {
				return fd, true
			}
		}
	}
	return nil, false
}

// methodsNamed returns the session's method declarations called name.
func (s *Session) methodsNamed(name string) []*ast.FuncDecl {
	var out []*ast.FuncDecl
	for _, r := range s.history {
		for _, d := range r.cell.decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && fd.Name.Name == name {
				out = append(out, fd)
			}
		}
	}
	return out
}

func countResults(ft *ast.FuncType) int {
	if ft.Results == nil {
		return 0
	}
	n := 0
	for _, f := range ft.Results.List {
		n += max(len(f.Names), 1)
	}
	return n
}

var builtinResults = map[string]int{
	"len": 1, "cap": 1, "append": 1, "make": 1, "new": 1, "complex": 1, "real": 1, "imag": 1,
	"copy": 1, "recover": 1, "min": 1, "max": 1,
	"print": 0, "println": 0, "panic": 0, "close": 0, "delete": 0, "clear": 0, "Go": 0,
}

var basicTypes = map[string]bool{"bool": true, "string": true, "float32": true, "float64": true,
	"complex64": true, "complex128": true, "error": true, "any": true}

// resultCount returns how many results a call has, or -1 when unknown.
// The interpreter's Eval gives no way to tell a call with no result from
// one whose result is a left-over value, so the session works it out.
func (s *Session) resultCount(w *world, call *ast.CallExpr) int {
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		if n, ok := builtinResults[fun.Name]; ok {
			return n
		}
		if intTypes[fun.Name] || basicTypes[fun.Name] {
			return 1
		}
		if d, ok := s.funcDecl(fun.Name); ok {
			return countResults(d.Type)
		}
		if _, ok := s.latestDecl(declKey{"type", fun.Name}); ok {
			return 1
		}
		if v, ok := w.in.Globals()[fun.Name]; ok && v.IsValid() && v.Kind() == reflect.Func {
			return v.Type().NumOut()
		}
	case *ast.FuncLit:
		return countResults(fun.Type)
	case *ast.ArrayType, *ast.StarExpr, *ast.MapType, *ast.ChanType, *ast.InterfaceType, *ast.StructType:
		return 1
	case *ast.SelectorExpr:
		if id, ok := fun.X.(*ast.Ident); ok {
			if path, ok := w.imported[id.Name]; ok && !s.isVar(w, id.Name) {
				if fmtPrinters[id.Name+"."+fun.Sel.Name] {
					return 0
				}
				v, ok := s.exportsOf(path)[fun.Sel.Name]
				if !ok {
					return -1
				}
				if v.Kind() == reflect.Func {
					return v.Type().NumOut()
				}
				return 1 // a conversion to a package's type
			}
		}
		recv, ok := s.chainValue(w, fun.X)
		if !ok {
			return -1
		}
		if m, ok := findMethod(recv, fun.Sel.Name); ok {
			return m.Type().NumOut()
		}
		// Methods of interpreted types are invisible to reflect: use the
		// declarations, when those of that name agree.
		n := -1
		for _, d := range s.methodsNamed(fun.Sel.Name) {
			c := countResults(d.Type)
			if n >= 0 && c != n {
				return -1
			}
			n = c
		}
		return n
	}
	return -1
}

// fmtPrinters print; their byte count and error are not worth showing.
var fmtPrinters = map[string]bool{"fmt.Print": true, "fmt.Println": true, "fmt.Printf": true,
	"fmt.Fprint": true, "fmt.Fprintln": true, "fmt.Fprintf": true}

func (s *Session) isVar(w *world, name string) bool {
	_, ok := w.in.Globals()[name]
	return ok
}

// chainValue evaluates x, y.z or a.b.c made of names only (reading them
// has no side effects).
func (s *Session) chainValue(w *world, e ast.Expr) (reflect.Value, bool) {
	var parts []string
	for {
		switch x := e.(type) {
		case *ast.Ident:
			parts = append([]string{x.Name}, parts...)
			if !s.isVar(w, x.Name) {
				return reflect.Value{}, false
			}
			return s.evalChain(w, parts)
		case *ast.SelectorExpr:
			parts = append([]string{x.Sel.Name}, parts...)
			e = x.X
		default:
			return reflect.Value{}, false
		}
	}
}

func (s *Session) evalChain(w *world, parts []string) (reflect.Value, bool) {
	v, ok := s.lookup(w, parts[0])
	if !ok {
		return v, false
	}
	for _, p := range parts[1:] {
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		f := v.FieldByName(p)
		if !f.IsValid() {
			f = v.FieldByName("X" + p)
		}
		if !f.IsValid() {
			return reflect.Value{}, false
		}
		v = f
	}
	return v, true
}

// findMethod finds a method of v's type, or of a struct embedded in it
// (the interpreter's structs embed compiled ones as plain fields named
// after their type).
func findMethod(v reflect.Value, name string) (reflect.Value, bool) {
	for depth := 0; depth < 4 && v.IsValid(); depth++ {
		if m := v.MethodByName(name); m.IsValid() {
			return m, true
		}
		if v.Kind() != reflect.Pointer && v.CanAddr() {
			if m := v.Addr().MethodByName(name); m.IsValid() {
				return m, true
			}
		}
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		var next reflect.Value
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !embeddedField(f) {
				continue
			}
			fv := v.Field(i)
			if m, ok := findMethod(fv, name); ok {
				return m, true
			}
			if !next.IsValid() {
				next = fv
			}
		}
		return reflect.Value{}, false
	}
	return reflect.Value{}, false
}

func embeddedField(f reflect.StructField) bool {
	if f.Anonymous {
		return true
	}
	t := f.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name() != "" && t.Name() == f.Name
}

// exportsOf returns the symbol table of a package the session can import.
func (s *Session) exportsOf(path string) map[string]reflect.Value {
	key := path + "/" + packageName(path)
	for _, table := range []map[string]map[string]reflect.Value{stdlib.Symbols, symbols.Symbols, Symbols, s.opts.Packages, s.runtime()} {
		if m, ok := table[key]; ok {
			return m
		}
	}
	return nil
}

// stdPackages maps a standard package's name to its path; when names
// clash, the shorter path wins (math/rand over crypto/rand), and
// text/template over html/template.
var stdPackages = func() map[string]string {
	m := map[string]string{}
	var keys []string
	for k := range stdlib.Symbols {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		i := strings.LastIndex(k, "/")
		if i < 0 {
			continue
		}
		path := k[:i]
		name := packageName(path)
		if old, ok := m[name]; ok && len(old) <= len(path) {
			continue
		}
		m[name] = path
	}
	m["template"] = "text/template"
	return m
}()

// usedPackages lists the standard packages the cell names (as pkg.X)
// without having imported them, and that are not names of its own.
func (s *Session) usedPackages(w *world, pc *parsedCell) []string {
	declared := map[string]bool{}
	for _, k := range pc.keys {
		declared[k.name] = true
	}
	seen := map[string]bool{}
	var out []string
	visit := func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && n.Tok == token.DEFINE {
					declared[id.Name] = true
				}
			}
		case *ast.Field:
			for _, id := range n.Names {
				declared[id.Name] = true
			}
		case *ast.SelectorExpr:
			id, ok := n.X.(*ast.Ident)
			if !ok || seen[id.Name] || declared[id.Name] {
				return true
			}
			if _, ok := w.imported[id.Name]; ok {
				return true
			}
			if _, ok := stdPackages[id.Name]; !ok || s.isVar(w, id.Name) || s.isSessionName(id.Name) {
				return true
			}
			seen[id.Name] = true
			out = append(out, id.Name)
		}
		return true
	}
	pc.inspect(visit)
	return out
}

// isSessionName reports whether an earlier cell declared name.
func (s *Session) isSessionName(name string) bool {
	for _, r := range s.history {
		for _, k := range r.cell.keys {
			if k.name == name {
				return true
			}
		}
	}
	return false
}

// renameMain renames a declared func main to _hgm (same length, so
// positions hold): the interpreter would run a func main on every later
// statement. Run calls _hgm.
func renameMain(pc *parsedCell) {
	for _, d := range pc.decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Name.Name != "main" {
			continue
		}
		off := pc.offset(fd.Name.Pos())
		pc.src = pc.src[:off] + mainAlias + pc.src[off+len("main"):]
		fd.Name.Name = mainAlias
		for i := range pc.keys {
			if pc.keys[i] == (declKey{"func", "main"}) {
				pc.keys[i].name = mainAlias
			}
		}
	}
}

const mainAlias = "_hgm"

// typeConstantArgs rewrites min(2.5, 1.5) as min(float64(2.5), 1.5): the
// interpreter cannot infer a type parameter from untyped constants alone.
// Only columns after the call on its line move.
func typeConstantArgs(pc *parsedCell) (*parsedCell, error) {
	var edits []edit
	visit := func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "min" && id.Name != "max" {
			return true
		}
		kind := token.INT
		for _, a := range call.Args {
			if u, ok := a.(*ast.UnaryExpr); ok && (u.Op == token.SUB || u.Op == token.ADD) {
				a = u.X
			}
			lit, ok := a.(*ast.BasicLit)
			if !ok {
				return true
			}
			if lit.Kind == token.FLOAT || lit.Kind == token.STRING && kind != token.FLOAT || lit.Kind == token.CHAR && kind == token.INT {
				kind = lit.Kind
			}
		}
		conv := map[token.Token]string{token.INT: "int", token.FLOAT: "float64", token.STRING: "string", token.CHAR: "rune"}[kind]
		start, end := pc.offset(call.Args[0].Pos()), pc.offset(call.Args[0].End())
		edits = append(edits, edit{start, start, conv + "("}, edit{end, end, ")"})
		return true
	}
	pc.inspect(visit)
	return pc.edit(edits)
}
