package onnx_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/onnx"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// evalAt runs sym with params and data x (sym's data variable re-declared
// with x's shape), returning its outputs.
func evalAt(t *testing.T, sym *graph.Symbol, params map[string]*eager.NDArray, input string, x *eager.NDArray) []*eager.NDArray {
	t.Helper()
	ref := sym.Copy()
	for _, n := range ref.Graph().Inputs() {
		if n.Name == input {
			n.Shapes[0] = x.Shape()
		}
	}
	bindings := map[string]*eager.NDArray{input: x}
	for k, v := range params {
		bindings[k] = v
	}
	outs, err := ref.Eval(bindings)
	if err != nil {
		t.Fatal(err)
	}
	return outs
}

// TestImportReadsWhatExportWrites exports each test graph (the op
// models of every converter among them) and the tutorial's LeNet,
// imports the model back, and runs both at the last batch size each is
// checked at in ONNX Runtime: the outputs must agree to float32
// rounding. Every op Export writes for these graphs is thereby one
// Import reads.
func TestImportReadsWhatExportWrites(t *testing.T) {
	type exported struct {
		name   string
		sym    *graph.Symbol
		params map[string]*eager.NDArray
		data   ops.Shape
		batch  int // the batch it runs at after the import
	}
	var cases []exported
	for _, md := range append(append([]model(nil), models...), opModels...) {
		sym := md.sym()
		cases = append(cases, exported{md.name, sym, bind(t, sym, md.data), md.data, md.batches[len(md.batches)-1]})
	}
	sym, params := lenet(t)
	cases = append(cases, exported{"lenet", sym, params, ops.Shape{2, 1, 28, 28}, 3})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := exportModel(t, c.sym, c.params, onnx.Options{InputShapes: map[string]ops.Shape{"data": c.data}})
			im, err := onnx.Import(m)
			if err != nil {
				t.Fatal(err)
			}
			if len(im.Inputs) != 1 || im.Inputs[0] != "data" {
				t.Fatalf("inputs %v, want [data]", im.Inputs)
			}
			x := eager.RandomNormal(append(ops.Shape{c.batch}, c.data[1:]...)...)
			want := evalAt(t, c.sym, c.params, "data", x)
			got := evalAt(t, im.Symbol, im.Params, "data", x)
			if len(got) != len(want) {
				t.Fatalf("%d outputs, want %d", len(got), len(want))
			}
			for i := range want {
				if !got[i].Shape().Equal(want[i].Shape()) {
					t.Fatalf("output %d: shape %s, want %s", i, got[i].Shape(), want[i].Shape())
				}
				g, w := got[i].Float64s(), want[i].Float64s()
				for j := range w {
					if math.Abs(g[j]-w[j]) > 1e-4*math.Max(1, math.Abs(w[j])) {
						t.Fatalf("output %d [%d]: %g, want %g", i, j, g[j], w[j])
					}
				}
			}
		})
	}
}

// TestImportErrors: what cannot be converted is an error that names the
// node, its op and what is wrong.
func TestImportErrors(t *testing.T) {
	input := func() []*onnx.ValueInfo {
		return []*onnx.ValueInfo{{Name: "x", ElemType: onnx.TypeFloat, HasShape: true, Shape: []onnx.Dim{{Param: "N"}, {Value: 3}, {Value: 8}, {Value: 8}}}}
	}
	weight := &onnx.Tensor{Name: "w", Dims: []int64{4, 3, 3, 3}, DataType: onnx.TypeFloat, FloatData: make([]float32, 4*3*3*3)}
	model := func(opset int64, inits []*onnx.Tensor, nodes ...*onnx.Node) *onnx.Model {
		return &onnx.Model{IRVersion: 8, OpsetImports: []onnx.OpsetID{{Version: opset}}, Graph: &onnx.Graph{
			Nodes: nodes, Initializers: inits, Inputs: input(), Outputs: []*onnx.ValueInfo{{Name: "y"}}}}
	}
	ints := func(name string, v ...int64) *onnx.Attribute {
		return &onnx.Attribute{Name: name, Type: onnx.AttrInts, Ints: v}
	}
	i64 := func(name string, v int64) *onnx.Tensor {
		return &onnx.Tensor{Name: name, Dims: []int64{1}, DataType: onnx.TypeInt64, Int64Data: []int64{v}}
	}
	cases := []struct {
		name  string
		model *onnx.Model
		want  string
	}{
		{"unknown op", model(13, nil, &onnx.Node{Name: "n0", OpType: "NonMaxSuppression", Inputs: []string{"x"}, Outputs: []string{"y"}}),
			`node 0 "n0" (NonMaxSuppression): op NonMaxSuppression has no conversion (the ops that have: Abs, Add,`},
		{"other domain", model(13, nil, &onnx.Node{Name: "n0", OpType: "FusedConv", Domain: "com.microsoft", Inputs: []string{"x"}, Outputs: []string{"y"}}),
			`node 0 "n0" (FusedConv): ops of domain "com.microsoft" are not supported`},
		{"old opset", model(9, nil), "opset 9 is not supported (opsets 11 to 18 are)"},
		{"asymmetric pads", model(13, []*onnx.Tensor{weight}, &onnx.Node{Name: "conv", OpType: "Conv", Inputs: []string{"x", "w"}, Outputs: []string{"y"},
			Attributes: []*onnx.Attribute{ints("pads", 0, 0, 1, 1)}}),
			`node 0 "conv" (Conv): pads [0 0 1 1] differ at the start and the end of a dim`},
		{"auto_pad", model(13, []*onnx.Tensor{weight}, &onnx.Node{Name: "conv", OpType: "Conv", Inputs: []string{"x", "w"}, Outputs: []string{"y"},
			Attributes: []*onnx.Attribute{{Name: "auto_pad", Type: onnx.AttrString, S: []byte("SAME_UPPER")}}}),
			"auto_pad=SAME_UPPER is not supported"},
		{"undefined input", model(13, nil, &onnx.Node{Name: "r", OpType: "Relu", Inputs: []string{"z"}, Outputs: []string{"y"}}),
			`node 0 "r" (Relu): input 0 "z" is not an output of an earlier node, an initializer or an input`},
		{"short initializer", model(13, []*onnx.Tensor{{Name: "w", Dims: []int64{1000, 1000}, DataType: onnx.TypeFloat, RawData: make([]byte, 8)}}),
			`initializer "w": dims [1000 1000] need 1000000 values, the tensor holds 2`},
		{"no output", model(13, nil, &onnx.Node{Name: "r", OpType: "Relu", Inputs: []string{"x"}, Outputs: []string{"z"}}),
			`output "y" is not a tensor the graph computes`},
		{"shape used as a tensor", model(13, nil,
			&onnx.Node{Name: "s", OpType: "Shape", Inputs: []string{"x"}, Outputs: []string{"s"}},
			&onnx.Node{Name: "r", OpType: "Relu", Inputs: []string{"s"}, Outputs: []string{"y"}}),
			`node 1 "r" (Relu): input 0 "s" is a shape computed at import`},
		{"pad before a max pool", model(13, []*onnx.Tensor{{Name: "pads", Dims: []int64{8}, DataType: onnx.TypeInt64, Int64Data: []int64{0, 0, 1, 1, 0, 0, 1, 1}}},
			&onnx.Node{Name: "pad", OpType: "Pad", Inputs: []string{"x", "pads"}, Outputs: []string{"p"}},
			&onnx.Node{Name: "pool", OpType: "MaxPool", Inputs: []string{"p"}, Outputs: []string{"y"}, Attributes: []*onnx.Attribute{ints("kernel_shape", 3, 3)}}),
			`node 1 "pool" (MaxPool): input 0 "p" is the output of a Pad, whose padding this op cannot take over`},
		{"batch-dependent reshape", model(13, []*onnx.Tensor{i64("zero", 0), i64("three", 3), i64("rest", -1)},
			&onnx.Node{Name: "s", OpType: "Shape", Inputs: []string{"x"}, Outputs: []string{"s"}},
			&onnx.Node{Name: "g", OpType: "Gather", Inputs: []string{"s", "zero"}, Outputs: []string{"n"}},
			&onnx.Node{Name: "c", OpType: "Concat", Inputs: []string{"three", "n", "rest"}, Outputs: []string{"shape"},
				Attributes: []*onnx.Attribute{{Name: "axis", Type: onnx.AttrInt}}},
			&onnx.Node{Name: "r", OpType: "Reshape", Inputs: []string{"x", "shape"}, Outputs: []string{"y"}},
		), `node 3 "r" (Reshape): dim 1 of the new shape depends on a symbolic dim of an input`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := onnx.Import(c.model)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestImportOps: every ONNX op Import lists says what it becomes.
func TestImportOps(t *testing.T) {
	list := onnx.ImportOps()
	if len(list) < 50 {
		t.Fatalf("%d ops import, want at least 50", len(list))
	}
	for _, op := range list {
		if m, ok := onnx.ImportMapping(op); !ok || m == "" {
			t.Errorf("%s: mapping %q, %v", op, m, ok)
		}
	}
	if _, ok := onnx.ImportMapping("NoSuchOp"); ok {
		t.Error("NoSuchOp imports")
	}
}

// TestImportGemm: Gemm with alpha, beta and an untransposed B, which is
// not a dense layer, computes alpha*A*B + beta*C.
func TestImportGemm(t *testing.T) {
	bv := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12} // (3, 4)
	cv := []float32{1, -1, 2, -2}
	m := &onnx.Model{IRVersion: 8, OpsetImports: []onnx.OpsetID{{Version: 13}}, Graph: &onnx.Graph{
		Nodes: []*onnx.Node{{Name: "gemm", OpType: "Gemm", Inputs: []string{"x", "b", "c"}, Outputs: []string{"y"},
			Attributes: []*onnx.Attribute{{Name: "alpha", Type: onnx.AttrFloat, F: 2}, {Name: "beta", Type: onnx.AttrFloat, F: 0.5}}}},
		Initializers: []*onnx.Tensor{
			{Name: "b", Dims: []int64{3, 4}, DataType: onnx.TypeFloat, FloatData: bv},
			{Name: "c", Dims: []int64{4}, DataType: onnx.TypeFloat, FloatData: cv}},
		Inputs:  []*onnx.ValueInfo{{Name: "x", ElemType: onnx.TypeFloat, HasShape: true, Shape: []onnx.Dim{{Param: "N"}, {Value: 3}}}},
		Outputs: []*onnx.ValueInfo{{Name: "y"}}}}
	im, err := onnx.Import(m)
	if err != nil {
		t.Fatal(err)
	}
	x := eager.Array([]float32{1, 0, -1, 2, 1, 0}, 2, 3)
	got := evalAt(t, im.Symbol, im.Params, "x", x)[0].Float64s()
	xs := x.Float64s()
	for i := range 2 {
		for j := range 4 {
			want := 0.5 * float64(cv[j])
			for k := range 3 {
				want += 2 * xs[i*3+k] * float64(bv[k*4+j])
			}
			if g := got[i*4+j]; math.Abs(g-want) > 1e-5 {
				t.Errorf("y[%d][%d] = %g, want %g", i, j, g, want)
			}
		}
	}
}
