package repl

import "reflect"

//go:generate go run ./internal/gen
//go:generate go run github.com/traefik/yaegi/cmd/yaegi extract -name repl github.com/hybridgo/hybridgo/repl/nd github.com/hybridgo/hybridgo/repl/sym

// Symbols holds the yaegi tables of the nd and sym namespaces (generated),
// keyed "<import path>/<package name>" as Interpreter.Use expects.
var Symbols = map[string]map[string]reflect.Value{}
