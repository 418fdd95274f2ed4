package repl

import (
	"go/ast"
	"go/scanner"
	"go/token"
	"reflect"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

var keywords = []string{"break", "case", "chan", "const", "continue", "default", "defer", "else",
	"fallthrough", "for", "func", "go", "goto", "if", "import", "interface", "map", "package",
	"range", "return", "select", "struct", "switch", "type", "var"}

var builtins = []string{"append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len",
	"make", "max", "min", "new", "panic", "print", "println", "real", "recover",
	"bool", "byte", "complex128", "complex64", "error", "float32", "float64", "int", "int16", "int32",
	"int64", "int8", "rune", "string", "uint", "uint16", "uint32", "uint64", "uint8", "uintptr",
	"true", "false", "nil", "iota", "any", "Go", "F"}

// Complete returns the candidates for the word that ends at cursor, and
// where it starts: code[start:cursor] is to be replaced by a candidate.
// After "pkg." it offers the package's exported names; after "x." (x a
// variable, or a chain of fields) the fields and methods of x's type;
// otherwise keywords, builtins, packages and the session's names.
func (s *Session) Complete(code string, cursor int) (candidates []string, start int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cursor < 0 || cursor > len(code) {
		cursor = len(code)
	}
	start = cursor
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(code[:start])
		if !isIdentRune(r) {
			break
		}
		start -= size
	}
	prefix := code[start:cursor]
	var pool []string
	if start > 0 && code[start-1] == '.' {
		chain := selectorChain(code[:start-1])
		if len(chain) == 0 {
			return nil, start
		}
		pool = s.members(chain)
	} else {
		pool = append(pool, keywords...)
		pool = append(pool, builtins...)
		for name := range s.in.imported {
			if !strings.HasPrefix(name, "__") {
				pool = append(pool, name)
			}
		}
		for name := range stdPackages {
			pool = append(pool, name)
		}
		for name := range s.in.in.Globals() {
			if !strings.HasPrefix(name, "__") {
				pool = append(pool, name)
			}
		}
		for _, r := range s.history {
			for _, k := range r.cell.keys {
				if !strings.Contains(k.name, ".") {
					pool = append(pool, k.name)
				}
			}
		}
	}
	seen := map[string]bool{}
	for _, c := range pool {
		if strings.HasPrefix(c, prefix) && !seen[c] && !strings.HasPrefix(c, "_") {
			seen[c] = true
			candidates = append(candidates, c)
		}
	}
	sort.Strings(candidates)
	return candidates, start
}

func isIdentRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// selectorChain returns the names of "a.b.c" ending code, or nil.
func selectorChain(code string) []string {
	var parts []string
	end := len(code)
	for {
		i := end
		for i > 0 {
			r, size := utf8.DecodeLastRuneInString(code[:i])
			if !isIdentRune(r) {
				break
			}
			i -= size
		}
		if i == end || !token.IsIdentifier(code[i:end]) {
			return nil
		}
		parts = append([]string{code[i:end]}, parts...)
		if i == 0 || code[i-1] != '.' {
			return parts
		}
		end = i - 1
	}
}

// members lists what can follow "chain.".
func (s *Session) members(chain []string) []string {
	w := s.in
	if len(chain) == 1 {
		if path, ok := w.imported[chain[0]]; ok && !s.isVar(w, chain[0]) {
			return exportedNames(s.exportsOf(path))
		}
		if path, ok := stdPackages[chain[0]]; ok && !s.isVar(w, chain[0]) && !s.isSessionName(chain[0]) {
			return exportedNames(s.exportsOf(path))
		}
	}
	if !s.isVar(w, chain[0]) {
		return nil
	}
	v, ok := s.evalChain(w, chain)
	if !ok {
		return nil
	}
	return s.fieldsAndMethods(w, v)
}

func exportedNames(table map[string]reflect.Value) []string {
	var out []string
	for name := range table {
		if ast.IsExported(name) {
			out = append(out, name)
		}
	}
	return out
}

// fieldsAndMethods lists the fields and methods reachable from v: those
// reflect sees, those of embedded structs, and the methods the session
// declared on v's interpreted type.
func (s *Session) fieldsAndMethods(w *world, v reflect.Value) []string {
	var out []string
	t := v.Type()
	addMethods := func(t reflect.Type) {
		for i := 0; i < t.NumMethod(); i++ {
			out = append(out, t.Method(i).Name)
		}
	}
	if name, ok := s.typeNames(w)[derefType(t)]; ok {
		for _, r := range s.history {
			for _, k := range r.cell.keys {
				if k.kind == "method" && strings.HasPrefix(k.name, name+".") {
					out = append(out, strings.TrimPrefix(k.name, name+"."))
				}
			}
		}
	}
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		addMethods(t)
		if t.Kind() != reflect.Pointer {
			addMethods(reflect.PointerTo(t))
		}
		st := derefType(t)
		if st.Kind() != reflect.Struct || depth > 3 {
			return
		}
		if st != t {
			addMethods(st)
		}
		for i := 0; i < st.NumField(); i++ {
			f := st.Field(i)
			name := f.Name
			if strings.HasPrefix(name, "X") && len(name) > 1 && unicode.IsLower(rune(name[1])) {
				name = name[1:] // the interpreter renames unexported fields
			}
			out = append(out, name)
			if embeddedField(f) {
				walk(f.Type, depth+1)
			}
		}
	}
	walk(t, 0)
	return out
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// Doc returns the declaration and doc comment of a name: "nn.Dense",
// "nn.Dense.Forward", "nd.Relu", "strings.Join" (signature only), a
// session's type, function, method ("Net.HybridForward") or variable,
// or a variable's method or field ("net.Forward").
func (s *Session) Doc(name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.in
	parts := strings.Split(name, ".")
	for _, p := range parts {
		if !token.IsIdentifier(p) {
			return "", false
		}
	}
	// The session's own declarations.
	for _, kind := range []string{"type", "func", "method"} {
		if src, ok := s.latestDecl(declKey{kind, name}); ok {
			return strings.TrimSpace(src), true
		}
	}
	if len(parts) == 1 && s.isVar(w, name) {
		if v, ok := s.lookup(w, name); ok {
			return "var " + name + " " + s.typeString(w, v.Type()) + "\n\n" + summary(v), true
		}
	}
	// Packages.
	if path, ok := w.imported[parts[0]]; ok && !s.isVar(w, parts[0]) || stdPackages[parts[0]] != "" && !s.isVar(w, parts[0]) {
		if !ok {
			path = stdPackages[parts[0]]
		}
		if len(parts) == 1 {
			return "package " + parts[0] + " // import \"" + path + "\"", true
		}
		if d, ok := projectDocs[name]; ok {
			return d, true
		}
		v, ok := s.exportsOf(path)[parts[1]]
		if ok && len(parts) == 2 {
			return describeExport(parts[0]+"."+parts[1], v), true
		}
		if ok && len(parts) == 3 && v.Kind() == reflect.Pointer && v.IsNil() {
			t := v.Type().Elem()
			if d, ok := docOfMember(t, parts[2]); ok {
				return d, true
			}
			if m, ok := reflect.PointerTo(t).MethodByName(parts[2]); ok {
				return "func (*" + parts[0] + "." + parts[1] + ") " + parts[2] + signature(m.Type, 1), true
			}
		}
		return "", false
	}
	// A variable's method or field.
	if len(parts) >= 2 && s.isVar(w, parts[0]) {
		v, ok := s.evalChain(w, parts[:len(parts)-1])
		if !ok {
			return "", false
		}
		member := parts[len(parts)-1]
		if tn, ok := s.typeNames(w)[derefType(v.Type())]; ok {
			if src, ok := s.latestDecl(declKey{"method", tn + "." + member}); ok {
				return strings.TrimSpace(src), true
			}
		}
		if d, ok := docOfMember(v.Type(), member); ok {
			return d, true
		}
		if m, ok := findMethod(v, member); ok {
			return "func (" + s.typeString(w, v.Type()) + ") " + member + strings.TrimPrefix(m.Type().String(), "func"), true
		}
	}
	return "", false
}

// docOfMember finds "pkg.Type.Member" in the project's docs for t or a
// type embedded in it.
func docOfMember(t reflect.Type, member string) (string, bool) {
	return docOfMemberDepth(t, member, 0)
}

func docOfMemberDepth(t reflect.Type, member string, depth int) (string, bool) {
	st := derefType(t)
	if st.PkgPath() != "" {
		if d, ok := projectDocs[packageName(st.PkgPath())+"."+st.Name()+"."+member]; ok {
			return d, true
		}
	}
	if st.Kind() != reflect.Struct || depth > 3 {
		return "", false
	}
	for i := 0; i < st.NumField(); i++ {
		if f := st.Field(i); embeddedField(f) {
			if d, ok := docOfMemberDepth(f.Type, member, depth+1); ok {
				return d, true
			}
		}
	}
	return "", false
}

// signature prints a func type's parameters (from the skip-th) and
// results: "(x int) string" without names.
func signature(t reflect.Type, skip int) string {
	var in, out []string
	for i := skip; i < t.NumIn(); i++ {
		p := t.In(i).String()
		if t.IsVariadic() && i == t.NumIn()-1 {
			p = "..." + t.In(i).Elem().String()
		}
		in = append(in, p)
	}
	for i := 0; i < t.NumOut(); i++ {
		out = append(out, t.Out(i).String())
	}
	sig := "(" + strings.Join(in, ", ") + ")"
	switch len(out) {
	case 0:
	case 1:
		sig += " " + out[0]
	default:
		sig += " (" + strings.Join(out, ", ") + ")"
	}
	return sig
}

// describeExport describes a symbol of a compiled package from its
// reflect value (the binary has no doc comments for the standard
// library).
func describeExport(name string, v reflect.Value) string {
	switch {
	case v.Kind() == reflect.Func:
		return "func " + name + strings.TrimPrefix(v.Type().String(), "func")
	case v.Kind() == reflect.Pointer && v.IsNil():
		return "type " + name + " " + v.Type().Elem().Kind().String()
	case v.Kind() == reflect.Pointer:
		return "var " + name + " " + v.Type().Elem().String()
	}
	return "const " + name + " = " + display(v)
}

// IsComplete tells whether code is ready to run: "incomplete" while a
// bracket, string or comment is open or a line ends in the middle of a
// statement (an operator, a comma), with the indent for the next line;
// "invalid" when it cannot parse; "complete" otherwise.
func (s *Session) IsComplete(code string) (status string, indent string) {
	if strings.TrimSpace(code) == "" {
		return "complete", ""
	}
	fset := token.NewFileSet()
	file := fset.AddFile("cell", -1, len(code))
	var errMsg string
	var sc scanner.Scanner
	sc.Init(file, []byte(code), func(_ token.Position, msg string) {
		if errMsg == "" {
			errMsg = msg
		}
	}, 0)
	var stack []token.Token
	last := token.ILLEGAL
	for {
		_, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue
		}
		switch tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			stack = append(stack, tok)
		case token.RPAREN, token.RBRACK, token.RBRACE:
			want := map[token.Token]token.Token{token.RPAREN: token.LPAREN, token.RBRACK: token.LBRACK, token.RBRACE: token.LBRACE}[tok]
			if len(stack) == 0 || stack[len(stack)-1] != want {
				return "invalid", ""
			}
			stack = stack[:len(stack)-1]
		}
		last = tok
	}
	if errMsg != "" {
		if strings.Contains(errMsg, "not terminated") {
			return "incomplete", ""
		}
		return "invalid", ""
	}
	indent = strings.Repeat("\t", len(stack))
	if len(stack) > 0 {
		return "incomplete", indent
	}
	switch last {
	case token.IDENT, token.INT, token.FLOAT, token.IMAG, token.CHAR, token.STRING,
		token.BREAK, token.CONTINUE, token.FALLTHROUGH, token.RETURN,
		token.INC, token.DEC, token.RPAREN, token.RBRACK, token.RBRACE, token.SEMICOLON:
	default:
		return "incomplete", "\t"
	}
	if _, err := parseCell(code); err != nil {
		return "invalid", ""
	}
	return "complete", ""
}
