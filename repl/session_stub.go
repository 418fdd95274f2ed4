package repl

// A stand-in for the interpreter session while the real one is written
// elsewhere: the same API, implemented minimally on yaegi. This file is
// deleted when the real session lands.

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/hybridgo/hybridgo/internal/symbols"
)

// Options configure a Session.
type Options struct{ Stdout, Stderr io.Writer }

// Result is what a cell evaluated to.
type Result struct {
	Value    reflect.Value
	HasValue bool
	Text     string
}

// Var describes a variable of the session.
type Var struct{ Name, Type, Summary string }

// Session is an interpreter with the framework imported.
type Session struct {
	mu      sync.Mutex
	o       Options
	i       *interp.Interpreter
	cells   []string
	vars    []string
	imports map[string]bool
}

var prelude = map[string]string{
	"fmt":     "fmt",
	"math":    "math",
	"strings": "strings",
	"time":    "time",
	"nd":      "github.com/hybridgo/hybridgo/eager",
	"eager":   "github.com/hybridgo/hybridgo/eager",
	"ops":     "github.com/hybridgo/hybridgo/ops",
	"nn":      "github.com/hybridgo/hybridgo/nn",
	"graph":   "github.com/hybridgo/hybridgo/graph",
	"data":    "github.com/hybridgo/hybridgo/data",
}

// NewSession starts an interpreter with the prelude imported.
func NewSession(o Options) (*Session, error) {
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	s := &Session{o: o}
	return s, s.Reset()
}

// Reset forgets every cell.
func (s *Session) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := interp.New(interp.Options{Stdout: s.o.Stdout, Stderr: s.o.Stderr})
	if err := i.Use(stdlib.Symbols); err != nil {
		return err
	}
	if err := i.Use(symbols.Symbols); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("import (\n")
	s.imports = map[string]bool{}
	for name, path := range prelude {
		fmt.Fprintf(&b, "\t%s %q\n", name, path)
		s.imports[name+" "+path] = true
	}
	b.WriteString(")")
	if _, err := i.Eval(b.String()); err != nil {
		return err
	}
	s.i, s.cells, s.vars = i, nil, nil
	return nil
}

// Eval runs one cell.
func (s *Session) Eval(ctx context.Context, cell string) (res Result, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fset := token.NewFileSet()
	pieces, last, err := split(fset, cell)
	if err != nil {
		return res, err
	}
	var v reflect.Value
	for _, p := range pieces {
		if p.imp != nil {
			path := strings.Trim(p.imp.Path.Value, `"`)
			name := path[strings.LastIndex(path, "/")+1:]
			if p.imp.Name != nil {
				name = p.imp.Name.Name
			}
			key := name + " " + path
			if s.imports[key] {
				continue
			}
			s.imports[key] = true
		}
		v, err = s.eval(ctx, p.src)
		if err != nil {
			return res, err
		}
	}
	s.cells = append(s.cells, cell)
	for _, p := range pieces {
		s.vars = append(s.vars, p.defines...)
	}
	if last != nil && v.IsValid() && v.Type() != reflect.TypeFor[*any]() && !isPrint(last) && !s.void(ctx, last, cell) && !isNilError(v) {
		res = Result{Value: v, HasValue: true, Text: display(v)}
	}
	return res, nil
}

// void reports whether e calls a function that returns nothing (yaegi then
// returns a leftover value).
func (s *Session) void(ctx context.Context, e ast.Expr, cell string) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	name := ""
	for f := c.Fun; ; {
		switch x := f.(type) {
		case *ast.Ident:
			name = x.Name + name
		case *ast.SelectorExpr:
			name = "." + x.Sel.Name + name
			f = x.X
			continue
		default:
			return false
		}
		break
	}
	fv, err := s.eval(ctx, name)
	return err == nil && fv.IsValid() && fv.Kind() == reflect.Func && fv.Type().NumOut() == 0
}

func isNilError(v reflect.Value) bool {
	return v.Kind() == reflect.Interface && v.IsNil() && v.Type().Implements(reflect.TypeFor[error]())
}

func isPrint(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "fmt" && strings.HasPrefix(sel.Sel.Name, "Print")
}

func display(v reflect.Value) string {
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if !v.CanInterface() {
		return v.String()
	}
	return fmt.Sprint(v.Interface())
}

func (s *Session) eval(ctx context.Context, src string) (v reflect.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	v, err = s.i.EvalWithContext(ctx, src)
	var p interp.Panic
	if errors.As(err, &p) {
		err = fmt.Errorf("panic: %v", p.Value)
	}
	return v, err
}

type piece struct {
	src     string
	imp     *ast.ImportSpec
	defines []string
}

// split cuts a cell into imports, declarations and one run of statements.
func split(fset *token.FileSet, cell string) ([]piece, ast.Expr, error) {
	if f, err := parser.ParseFile(fset, "", "package p\n"+cell, parser.SkipObjectResolution); err == nil {
		var ps []piece
		src := "package p\n" + cell
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				for _, spec := range g.Specs {
					is := spec.(*ast.ImportSpec)
					ps = append(ps, piece{src: "import " + src[fset.Position(is.Pos()).Offset:fset.Position(is.End()).Offset], imp: is})
				}
				continue
			}
			p := piece{src: src[fset.Position(d.Pos()).Offset:fset.Position(d.End()).Offset]}
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, spec := range g.Specs {
					for _, n := range spec.(*ast.ValueSpec).Names {
						p.defines = append(p.defines, n.Name)
					}
				}
			}
			ps = append(ps, p)
		}
		return ps, nil, nil
	}
	body := "package p\nfunc _() {\n" + cell + "\n}"
	f, err := parser.ParseFile(fset, "", body, parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, err
	}
	stmts := f.Decls[0].(*ast.FuncDecl).Body.List
	p := piece{src: cell}
	var last ast.Expr
	for _, st := range stmts {
		if a, ok := st.(*ast.AssignStmt); ok && a.Tok == token.DEFINE {
			for _, l := range a.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
					p.defines = append(p.defines, id.Name)
				}
			}
		}
	}
	if len(stmts) > 0 {
		if e, ok := stmts[len(stmts)-1].(*ast.ExprStmt); ok {
			last = e.X
		}
	}
	return []piece{p}, last, nil
}

// IsComplete says whether code is a whole statement.
func (s *Session) IsComplete(code string) (string, string) {
	if strings.TrimSpace(code) == "" {
		return "complete", ""
	}
	fset := token.NewFileSet()
	if _, err := parser.ParseFile(fset, "", "package p\n"+code, 0); err == nil {
		return "complete", ""
	}
	_, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+code+"\n}", 0)
	if err == nil {
		return "complete", ""
	}
	depth := 0
	for _, r := range code {
		switch r {
		case '{', '(', '[':
			depth++
		case '}', ')', ']':
			depth--
		}
	}
	if depth > 0 || strings.HasSuffix(strings.TrimSpace(code), "`") && strings.Count(code, "`")%2 == 1 {
		return "incomplete", strings.Repeat("    ", depth)
	}
	return "invalid", ""
}

// Complete lists completions of the identifier before cursor.
func (s *Session) Complete(code string, cursor int) ([]string, int) {
	code = code[:cursor]
	start := len(code)
	for start > 0 {
		c := code[start-1]
		if c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			start--
			continue
		}
		break
	}
	word := code[start:]
	dot := strings.LastIndex(word, ".")
	if dot < 0 {
		var out []string
		for name := range prelude {
			if strings.HasPrefix(name, word) {
				out = append(out, name)
			}
		}
		s.mu.Lock()
		for _, name := range s.vars {
			if strings.HasPrefix(name, word) {
				out = append(out, name)
			}
		}
		s.mu.Unlock()
		sort.Strings(out)
		return dedupe(out), start
	}
	pkg, prefix := word[:dot], word[dot+1:]
	var out []string
	if path, ok := prelude[pkg]; ok {
		for key, syms := range symbols.Symbols {
			if key == path+"/"+path[strings.LastIndex(path, "/")+1:] {
				for name := range syms {
					if strings.HasPrefix(name, prefix) && !strings.HasPrefix(name, "_") {
						out = append(out, name)
					}
				}
			}
		}
	} else if v, ok := s.Lookup(pkg); ok {
		t := v.Type()
		for i := 0; i < t.NumMethod(); i++ {
			if strings.HasPrefix(t.Method(i).Name, prefix) {
				out = append(out, t.Method(i).Name)
			}
		}
	}
	sort.Strings(out)
	return out, start + dot + 1
}

func dedupe(xs []string) []string {
	var out []string
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// Doc describes a name.
func (s *Session) Doc(name string) (string, bool) {
	v, ok := s.Lookup(name)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s %s", name, v.Type()), true
}

// Vars lists the variables defined so far.
func (s *Session) Vars() []Var {
	s.mu.Lock()
	names := append([]string(nil), s.vars...)
	s.mu.Unlock()
	sort.Strings(names)
	var out []Var
	for _, n := range dedupe(names) {
		if v, ok := s.Lookup(n); ok {
			out = append(out, Var{Name: n, Type: v.Type().String(), Summary: display(v)})
		}
	}
	return out
}

// Lookup returns the value of a name.
func (s *Session) Lookup(name string) (reflect.Value, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.eval(context.Background(), name)
	if err != nil || !v.IsValid() {
		return reflect.Value{}, false
	}
	return v, true
}

// Cells lists the cells evaluated without error.
func (s *Session) Cells() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.cells...)
}
