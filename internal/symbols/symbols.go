// Package symbols holds the yaegi symbol tables of hybridgo's public
// packages, so that interpreted Go can import them as if compiled:
// import "github.com/hybridgo/hybridgo/nn" works inside an interpreter
// that uses Symbols. The tables are generated; run `go generate
// ./internal/symbols` after changing an exported API (a test fails when
// they are stale).
package symbols

import "reflect"

//go:generate go run github.com/traefik/yaegi/cmd/yaegi extract github.com/hybridgo/hybridgo/ops github.com/hybridgo/hybridgo/eager github.com/hybridgo/hybridgo/graph github.com/hybridgo/hybridgo/format/mxnet github.com/hybridgo/hybridgo/format/onnx github.com/hybridgo/hybridgo/nn github.com/hybridgo/hybridgo/nn/loss github.com/hybridgo/hybridgo/nn/metric github.com/hybridgo/hybridgo/nn/optim github.com/hybridgo/hybridgo/nn/vision github.com/hybridgo/hybridgo/nn/rnn github.com/hybridgo/hybridgo/data github.com/hybridgo/hybridgo/viz github.com/hybridgo/hybridgo/display github.com/hybridgo/hybridgo/profiler

// Symbols maps "<import path>/<package name>" to the package's exported
// names, as yaegi's Interpreter.Use expects.
var Symbols = map[string]map[string]reflect.Value{}
