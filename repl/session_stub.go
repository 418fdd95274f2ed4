package repl

// A stand-in for the session's editing helpers (IsComplete, Complete,
// Doc) until the real ones land; this file is deleted then.

import (
	"fmt"
	"go/parser"
	"go/token"
	"reflect"
	"sort"
	"strings"

	"github.com/hybridgo/hybridgo/internal/symbols"
)

// IsComplete says whether code is a whole statement: "complete",
// "incomplete" (an open brace, parenthesis or raw string) or "invalid".
func (s *Session) IsComplete(code string) (status string, indent string) {
	if strings.TrimSpace(code) == "" {
		return "complete", ""
	}
	fset := token.NewFileSet()
	if _, err := parser.ParseFile(fset, "", "package p\n"+code, 0); err == nil {
		return "complete", ""
	}
	if _, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+code+"\n}", 0); err == nil {
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
	if depth > 0 || strings.Count(code, "`")%2 == 1 {
		return "incomplete", strings.Repeat("\t", max(depth, 0))
	}
	return "invalid", ""
}

// Complete lists the completions of the identifier before cursor and
// where it starts.
func (s *Session) Complete(code string, cursor int) (candidates []string, start int) {
	code = code[:cursor]
	start = len(code)
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
	var out []string
	if dot < 0 {
		for _, p := range preImports {
			if n := packageName(p); strings.HasPrefix(n, word) {
				out = append(out, n)
			}
		}
		for _, v := range s.Vars() {
			if strings.HasPrefix(v.Name, word) {
				out = append(out, v.Name)
			}
		}
		sort.Strings(out)
		return out, start
	}
	pkg, prefix := word[:dot], word[dot+1:]
	found := false
	for _, table := range []map[string]map[string]reflect.Value{symbols.Symbols, Symbols} {
		for key, names := range table {
			path := key[:strings.LastIndex(key, "/")]
			if packageName(path) != pkg {
				continue
			}
			found = true
			for name := range names {
				if strings.HasPrefix(name, prefix) && !strings.HasPrefix(name, "_") {
					out = append(out, name)
				}
			}
		}
	}
	if !found {
		if v, ok := s.Lookup(pkg); ok {
			t := v.Type()
			for i := 0; i < t.NumMethod(); i++ {
				if strings.HasPrefix(t.Method(i).Name, prefix) {
					out = append(out, t.Method(i).Name)
				}
			}
		}
	}
	sort.Strings(out)
	return out, start + dot + 1
}

// Doc describes a name by its type.
func (s *Session) Doc(name string) (string, bool) {
	v, ok := s.Lookup(name)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s %s", name, v.Type()), true
}
