package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/format/onnx"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// saveLeNetParams writes random parameters for saveLeNet's symbol file
// beside it, named as export names them ("arg:conv0_weight").
func saveLeNetParams(t *testing.T, symPath string) string {
	t.Helper()
	sym, err := mxnet.LoadSymbol(symPath)
	if err != nil {
		t.Fatal(err)
	}
	args, _, _, err := sym.InferShape(map[string]ops.Shape{"data": {1, 1, 28, 28}})
	if err != nil {
		t.Fatal(err)
	}
	var list []mxnet.NamedArray
	for i, name := range sym.ListArguments() {
		if name != "data" {
			list = append(list, mxnet.NamedArray{Name: "arg:" + name, Array: eager.RandomNormal(args[i]...)})
		}
	}
	path := filepath.Join(filepath.Dir(symPath), "lenet-0000.params")
	if err := mxnet.SaveParams(path, list); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestConvert(t *testing.T) {
	symPath := saveLeNet(t, false)
	params := saveLeNetParams(t, symPath)
	code, out, errOut := runCmd("convert", symPath, params, "-shape", "data=1,1,28,28")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	path := filepath.Join(filepath.Dir(symPath), "lenet.onnx") // the default -o
	if !strings.Contains(out, "wrote "+path) {
		t.Errorf("output %q does not name %s", out, path)
	}
	m, err := onnx.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, n := range m.Graph.Nodes {
		types = append(types, n.OpType)
	}
	if got, want := strings.Join(types, " "), "Conv Relu MaxPool Conv Relu MaxPool Reshape Gemm Relu Gemm Relu Gemm"; got != want {
		t.Errorf("nodes %s, want %s", got, want)
	}
	if len(m.Graph.Inputs) != 1 || m.Graph.Inputs[0].Shape[0].Param != onnx.BatchDim || len(m.Graph.Initializers) != 11 {
		t.Errorf("inputs %+v, %d initializers: want data with a batch N and 10 parameters and a shape", m.Graph.Inputs, len(m.Graph.Initializers))
	}
}

// TestConvertFromONNX converts LeNet to ONNX and back to MXNet's files,
// which run as the first did.
func TestConvertFromONNX(t *testing.T) {
	symPath := saveLeNet(t, false)
	params := saveLeNetParams(t, symPath)
	dir := filepath.Dir(symPath)
	if code, _, errOut := runCmd("convert", symPath, params, "-shape", "data=1,1,28,28"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	prefix := filepath.Join(dir, "back")
	code, out, errOut := runCmd("convert", filepath.Join(dir, "lenet.onnx"), "-o", prefix)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "wrote " + prefix + "-symbol.json and " + prefix + "-0000.params (inputs: data)"; !strings.Contains(out, want) {
		t.Errorf("output %q, want %q", out, want)
	}
	x := eager.RandomNormal(2, 1, 28, 28)
	var outs [2][]float64
	for i, p := range []string{strings.TrimSuffix(symPath, "-symbol.json"), prefix} {
		sym, params, err := mxnet.LoadCheckpoint(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		params["data"] = x
		for _, n := range sym.Graph().Inputs() {
			if n.Name == "data" {
				n.Shapes[0] = x.Shape()
			}
		}
		y, err := sym.Eval(params)
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = y[0].Float64s()
	}
	for i := range outs[0] {
		if d := outs[0][i] - outs[1][i]; d > 1e-4 || d < -1e-4 {
			t.Fatalf("output %d: %g after the round trip, %g before", i, outs[1][i], outs[0][i])
		}
	}
}

func TestConvertErrors(t *testing.T) {
	symPath := saveLeNet(t, false)
	params := saveLeNetParams(t, symPath)
	unsupported := filepath.Join(t.TempDir(), "sin-symbol.json")
	if err := mxnet.SaveSymbol(unsupported, graph.F.Sin(graph.Var("data", ops.Shape{1, 2}, ops.Float32)).(*graph.Symbol)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "m.onnx")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no files", nil, 2, "Usage: hybridgo convert"},
		{"no data shape", []string{symPath, params, "-o", out}, 1, "-shape data="},
		{"bad shape", []string{symPath, "-shape", "data=1,x"}, 2, `dim "x"`},
		{"unsupported op", []string{unsupported, "-o", out}, 1, "op sin has no ONNX export"},
		{"missing file", []string{filepath.Join(t.TempDir(), "none-symbol.json")}, 1, "none-symbol.json"},
		{"opset", []string{symPath, params, "-shape", "data=1,1,28,28", "-opset", "9", "-o", out}, 1, "opset 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCmd(append([]string{"convert"}, tt.args...)...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tt.code, tt.want)
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed conversion wrote its output file")
	}
}

func TestOpsSaysONNX(t *testing.T) {
	for op, want := range map[string]string{"Convolution": "ONNX: Conv\n", "sin": "ONNX: no export"} {
		if _, out, _ := runCmd("ops", op); !strings.Contains(out, want) {
			t.Errorf("hybridgo ops %s lacks %q:\n%s", op, want, out)
		}
	}
}
