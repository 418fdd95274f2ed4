package repl

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// A cell that fails to compile must leave the session as it found it.
// The interpreter does not: it declares a cell's names (x := …, func f,
// type T, a method of T) while analysing the cell, before it finds the
// error, and an error stops it before it sizes the memory frame for the
// new variables. The names stay behind, half declared: a variable's slot
// lies past the end of the frame, so reading the globals panics with
// "index out of range [5] with length 5" on the next statement, a later
// use of the name compiles and reads garbage instead of failing with
// "undefined: bad", and a half-compiled function or method is kept.
//
// So the session takes a snapshot of the interpreter's package scope
// before each cell, and a cell that fails to compile is rolled back: the
// names it added are removed, those it replaced (func f declared again)
// are put back, and the method lists of the session's types are cut back
// to their length before the cell. Imports stay (they are harmless, and
// importing again is a no-op). A cell that panics while running is not
// rolled back: what it did before the panic stays, as in any REPL.
//
// The snapshot costs a copy of the symbol table per cell (see
// BenchmarkSnapshot); rebuilding a fresh interpreter and replaying the
// successful cells instead would run every cell again, training cells
// included.

// scopeSnapshot is the interpreter's package scope as it was before a cell.
type scopeSnapshot struct {
	syms    reflect.Value            // the live symbol table, map[string]*symbol
	saved   map[string]reflect.Value // name -> *symbol before the cell
	methods []methodLen
}

// methodLen is a type's method list and its length before the cell.
type methodLen struct {
	list reflect.Value // settable []*node
	n    int
}

// snapshot records the package scope of the interpreter; nil when the
// interpreter's layout is not the one known (yaegi v0.16.1), and then
// nothing can be rolled back.
func snapshot(in *interp.Interpreter) *scopeSnapshot {
	syms := mainSymbols(in)
	if !syms.IsValid() {
		return nil
	}
	s := &scopeSnapshot{syms: syms, saved: make(map[string]reflect.Value, syms.Len())}
	it := syms.MapRange()
	for it.Next() {
		sym := it.Value()
		s.saved[it.Key().String()] = sym
		if symKind(sym) != "typeSym" {
			continue
		}
		typ := unexported(sym.Elem(), "typ")
		for _, t := range []reflect.Value{typ, ptrType(typ)} {
			if t.IsValid() && !t.IsNil() {
				if list := unexported(t.Elem(), "method"); list.IsValid() {
					s.methods = append(s.methods, methodLen{list, list.Len()})
				}
			}
		}
	}
	return s
}

// restore puts the package scope back as it was at the snapshot.
func (s *scopeSnapshot) restore() {
	if s == nil {
		return
	}
	for _, k := range s.syms.MapKeys() {
		old, ok := s.saved[k.String()]
		switch {
		case !ok && symKind(s.syms.MapIndex(k)) != "pkgSym":
			s.syms.SetMapIndex(k, reflect.Value{})
		case ok && s.syms.MapIndex(k).Pointer() != old.Pointer():
			s.syms.SetMapIndex(k, old)
		}
	}
	for name, old := range s.saved {
		if !s.syms.MapIndex(reflect.ValueOf(name)).IsValid() {
			s.syms.SetMapIndex(reflect.ValueOf(name), old)
		}
	}
	for _, m := range s.methods {
		if m.list.Len() > m.n {
			m.list.Set(m.list.Slice(0, m.n))
		}
	}
}

// mainSymbols returns the symbol table of the interpreter's main package
// (interp.scopes["main"].sym), settable, or an invalid value.
func mainSymbols(in *interp.Interpreter) reflect.Value {
	scopes := unexported(reflect.ValueOf(in).Elem(), "scopes")
	if !scopes.IsValid() || scopes.Kind() != reflect.Map {
		return reflect.Value{}
	}
	sc := scopes.MapIndex(reflect.ValueOf("main"))
	if !sc.IsValid() || sc.Kind() != reflect.Pointer || sc.IsNil() {
		return reflect.Value{}
	}
	syms := unexported(sc.Elem(), "sym")
	if !syms.IsValid() || syms.Kind() != reflect.Map || syms.Type().Key().Kind() != reflect.String ||
		syms.Type().Elem().Kind() != reflect.Pointer || !unexported(reflect.New(syms.Type().Elem().Elem()).Elem(), "kind").IsValid() {
		return reflect.Value{}
	}
	return syms
}

// symKind names a *symbol's kind: "varSym", "typeSym", "pkgSym"…
func symKind(sym reflect.Value) string {
	if !sym.IsValid() || sym.IsNil() {
		return ""
	}
	k := unexported(sym.Elem(), "kind")
	if !k.IsValid() || !k.CanInterface() {
		return ""
	}
	return fmt.Sprint(k.Interface())
}

// ptrType is the pointer type an *itype keeps for itself, if any.
func ptrType(typ reflect.Value) reflect.Value {
	if !typ.IsValid() || typ.Kind() != reflect.Pointer || typ.IsNil() {
		return reflect.Value{}
	}
	return unexported(typ.Elem(), "ptr")
}

// unexported returns a struct's field by name, readable and settable
// even when unexported (v must be addressable), or an invalid value.
func unexported(v reflect.Value, name string) reflect.Value {
	if v.Kind() != reflect.Struct {
		return reflect.Value{}
	}
	f := v.FieldByName(name)
	if !f.IsValid() || !f.CanAddr() {
		return reflect.Value{}
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}
