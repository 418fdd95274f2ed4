package onnx_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/onnx"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// ortPackage is the ONNX Runtime the exported models are checked with.
const ortPackage = "onnxruntime-node@1.30.0"

// onnxRuntime returns a directory holding node_modules/onnxruntime-node,
// installing it on first use into the user's cache (reused by later
// runs), or skips the test when node or npm is missing.
func onnxRuntime(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: not running ONNX Runtime")
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: ONNX Runtime (npm's %s) cannot be run to check the exported models", tool, ortPackage)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no cache directory for ONNX Runtime: %v", err)
	}
	dir := filepath.Join(cache, "hybridgo", "onnxruntime")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "onnxruntime-node", "package.json")); err == nil {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", ortPackage)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm install %s in %s failed (%v):\n%s", ortPackage, dir, err, out)
	}
	return dir
}

type ortTensor struct {
	Dims []int     `json:"dims"`
	Data []float64 `json:"data"`
}

type ortRun struct {
	Model string               `json:"model"`
	Feeds map[string]ortTensor `json:"feeds"`
}

// check is one run to compare: the ONNX outputs by name against
// hybridgo's.
type check struct {
	name  string
	names []string
	want  []*eager.NDArray
}

// TestONNXRuntime exports each model, runs it with ONNX Runtime at one or
// two batch sizes, and compares the outputs with hybridgo's own.
func TestONNXRuntime(t *testing.T) {
	modules := onnxRuntime(t)
	dir := t.TempDir()
	var runs []ortRun
	var checks []check
	add := func(name string, opset int, sym *graph.Symbol, params map[string]*eager.NDArray, exportData ops.Shape, batches []int) {
		r, c := ortCase(t, dir, name, opset, sym, params, exportData, batches)
		runs, checks = append(runs, r...), append(checks, c...)
	}
	for _, md := range models {
		sym := md.sym()
		add(md.name, 0, sym, bind(t, sym, md.data), md.data, md.batches)
	}
	// The ops of convert_more.go at the first and the last opset, where
	// some ONNX ops take as inputs what older ones took as attributes.
	for _, opset := range []int{onnx.DefaultOpset, onnx.MaxOpset} {
		for _, md := range opModels {
			sym := md.sym()
			add(fmt.Sprintf("%s_opset%d", md.name, opset), opset, sym, bind(t, sym, md.data), md.data, md.batches)
		}
	}
	sym, params := lenet(t)
	add("lenet", 0, sym, params, ops.Shape{2, 1, 28, 28}, []int{1, 3})

	results := runORT(t, modules, dir, runs)
	checkResults(t, checks, results)
}

// ortCase exports sym with params (the data declared as exportData) into
// dir and returns the ONNX Runtime runs of it at the batch sizes, with
// hybridgo's outputs to compare theirs with.
func ortCase(t *testing.T, dir, name string, opset int, sym *graph.Symbol, params map[string]*eager.NDArray,
	exportData ops.Shape, batches []int) (runs []ortRun, checks []check) {
	t.Helper()
	b, err := onnx.Export(sym, params, onnx.Options{Opset: opset, InputShapes: map[string]ops.Shape{"data": exportData}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	m, err := onnx.DecodeModel(b)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".onnx")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range m.Graph.Outputs {
		names = append(names, o.Name)
	}
	for _, batch := range batches {
		shape := append(ops.Shape{batch}, exportData[1:]...)
		x := eager.RandomNormal(shape...)
		bindings := map[string]*eager.NDArray{"data": x}
		for k, v := range params {
			bindings[k] = v
		}
		ref := sym.Copy() // declared with the export batch: re-declared with this one
		for _, n := range ref.Graph().Inputs() {
			if n.Name == "data" {
				n.Shapes[0] = shape
			}
		}
		want, err := ref.Eval(bindings)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		runs = append(runs, ortRun{Model: path, Feeds: map[string]ortTensor{"data": {Dims: shape, Data: x.Float64s()}}})
		checks = append(checks, check{fmt.Sprintf("%s at batch %d", name, batch), names, want})
	}
	return runs, checks
}

// runORT runs the models with ONNX Runtime, through testdata/run.js, and
// returns each run's outputs by name (or its "error").
func runORT(t *testing.T, modules, dir string, runs []ortRun) []map[string]json.RawMessage {
	t.Helper()
	request := filepath.Join(dir, "request.json")
	response := filepath.Join(dir, "response.json")
	b, err := json.Marshal(runs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(request, b, 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "run.js"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("node", script, modules, request, response).CombinedOutput(); err != nil {
		t.Fatalf("node run.js: %v\n%s", err, out)
	}
	b, err = os.ReadFile(response)
	if err != nil {
		t.Fatal(err)
	}
	var results []map[string]json.RawMessage
	if err := json.Unmarshal(b, &results); err != nil {
		t.Fatal(err)
	}
	if len(results) != len(runs) {
		t.Fatalf("%d results for %d runs", len(results), len(runs))
	}
	return results
}

// checkResults compares ONNX Runtime's outputs, one result per check,
// with hybridgo's.
func checkResults(t *testing.T, checks []check, results []map[string]json.RawMessage) {
	t.Helper()
	for i, c := range checks {
		if msg, ok := results[i]["error"]; ok {
			t.Errorf("%s: ONNX Runtime: %s", c.name, msg)
			continue
		}
		for j, name := range c.names {
			var got ortTensor
			if err := json.Unmarshal(results[i][name], &got); err != nil {
				t.Errorf("%s: output %s: %v", c.name, name, err)
				continue
			}
			compare(t, c.name+" output "+name, got, c.want[j])
		}
	}
}

// compare checks ONNX Runtime's output against hybridgo's, to float32
// accuracy.
func compare(t *testing.T, what string, got ortTensor, want *eager.NDArray) {
	t.Helper()
	if !slices.Equal(got.Dims, []int(want.Shape())) {
		t.Errorf("%s: shape %v, want %v", what, got.Dims, want.Shape())
		return
	}
	w := want.Float64s()
	for k := range w {
		if d := math.Abs(got.Data[k] - w[k]); d > 1e-4+1e-4*math.Abs(w[k]) {
			t.Errorf("%s: element %d is %g, want %g", what, k, got.Data[k], w[k])
			return
		}
	}
}
