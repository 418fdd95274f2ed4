package symbols

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestSymbolsAreFresh fails when an exported name of a package is missing
// from its generated table, or a table lists a name the package no longer
// has: run `go generate ./internal/symbols`.
func TestSymbolsAreFresh(t *testing.T) {
	for _, pkg := range []string{"ops", "eager", "graph", "nn", "data", "viz", "display"} {
		key := "github.com/hybridgo/hybridgo/" + pkg + "/" + pkg
		table, ok := Symbols[key]
		if !ok {
			t.Fatalf("no table for %s: run go generate ./internal/symbols", pkg)
		}
		want := exportedNames(t, filepath.Join("..", "..", pkg))
		var missing, extra []string
		for name := range want {
			if _, ok := table[name]; !ok {
				missing = append(missing, name)
			}
		}
		for name := range table {
			if strings.HasPrefix(name, "_") {
				continue // interface wrappers
			}
			if !want[name] {
				extra = append(extra, name)
			}
		}
		sort.Strings(missing)
		sort.Strings(extra)
		if len(missing) > 0 || len(extra) > 0 {
			t.Errorf("%s: the symbol table is stale (missing %v, extra %v): run go generate ./internal/symbols", pkg, missing, extra)
		}
	}
}

// exportedNames lists the exported, non-generic top-level names of the
// package in dir, as yaegi extract sees them.
func exportedNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() && d.Type.TypeParams == nil {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() && s.TypeParams == nil && !isConstraint(s.Type) {
							names[s.Name.Name] = true
						}
					case *ast.ValueSpec:
						for _, id := range s.Names {
							if id.IsExported() {
								names[id.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return names
}

// isConstraint reports whether a type is an interface with a type set
// (~float32 | ~float64): usable only as a constraint, which extract skips.
func isConstraint(e ast.Expr) bool {
	it, ok := e.(*ast.InterfaceType)
	if !ok {
		return false
	}
	for _, m := range it.Methods.List {
		switch m.Type.(type) {
		case *ast.BinaryExpr, *ast.UnaryExpr:
			return true
		}
	}
	return false
}
