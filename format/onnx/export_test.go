package onnx_test

import (
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/format/onnx"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/internal/train"
	"github.com/hybridgo/hybridgo/ops"
)

// model is a graph to export, with its data shape at export time and the
// batch sizes to check it at.
type model struct {
	name    string
	sym     func() *graph.Symbol
	data    ops.Shape // at export; its first dim is the batch
	batches []int     // the batch sizes run through ONNX Runtime
}

func v(name string, shape ...int) ops.Tensor { return graph.Var(name, shape, ops.Unknown) }

func data(shape ...int) ops.Tensor { return graph.Var("data", shape, ops.Float32) }

var F = graph.F

var models = []model{
	{"mlp", func() *graph.Symbol {
		h := F.Relu(F.FullyConnected(data(0, 20), v("fc1_weight", 16, 0), v("fc1_bias"), 16))
		h = F.Activation(F.FullyConnected(h, v("fc2_weight", 8, 0), v("fc2_bias"), 8), "tanh")
		return F.Softmax(F.FullyConnected(h, v("fc3_weight", 4, 0), nil, 4)).(*graph.Symbol)
	}, ops.Shape{4, 20}, []int{2, 5}},
	{"convbn", func() *graph.Symbol {
		x := F.Convolution(data(0, 3, 9, 9), v("c1_weight", 4, 0, 3, 3), v("c1_bias"), []int{3, 3}, 4, ops.Attr{Name: "pad", Value: []int{1, 1}})
		x = F.BatchNorm(x, v("bn1_gamma"), v("bn1_beta"), v("bn1_mean"), v("bn1_var"), ops.Attr{Name: "fix_gamma", Value: false}, ops.Attr{Name: "eps", Value: 1e-5})
		x = F.Relu(x)
		x = F.Convolution(x, v("c2_weight", 6, 0, 3, 3), nil, []int{3, 3}, 6, ops.Attr{Name: "stride", Value: []int{2, 2}}, ops.Attr{Name: "no_bias", Value: true})
		x = F.BatchNorm(x, v("bn2_gamma"), v("bn2_beta"), v("bn2_mean"), v("bn2_var")) // fix_gamma
		x = F.Activation(x, "softrelu")
		x = F.Pooling(x, nil, "avg", ops.Attr{Name: "global_pool", Value: true})
		return F.FullyConnected(x, v("fc_weight", 3, 0), v("fc_bias"), 3).(*graph.Symbol)
	}, ops.Shape{2, 3, 9, 9}, []int{2, 3}},
	{"residual", residual, ops.Shape{2, 4, 6, 6}, []int{2}},
	{"fused", func() *graph.Symbol {
		// The residual block after graph.FuseActivation: the first
		// convolution and its relu are one node, which Export unfuses.
		g, _ := graph.FuseActivation(residual().Graph())
		return graph.FromEntries(g.Outputs...)
	}, ops.Shape{2, 4, 6, 6}, []int{3}},
	{"pooling", func() *graph.Symbol {
		x := data(0, 2, 7, 7)
		p := func(kind string, attrs ...ops.Attr) ops.Tensor {
			return F.Flatten(F.Pooling(x, []int{3, 3}, kind, attrs...))
		}
		s2 := ops.Attr{Name: "stride", Value: []int{2, 2}}
		pad := ops.Attr{Name: "pad", Value: []int{1, 1}}
		return F.Concat(1,
			p("max", s2),
			p("max", s2, pad, ops.Attr{Name: "pooling_convention", Value: "full"}),
			p("avg", s2, pad),
			p("avg", s2, pad, ops.Attr{Name: "count_include_pad", Value: false}),
			p("avg", ops.Attr{Name: "stride", Value: []int{3, 3}}, ops.Attr{Name: "pooling_convention", Value: "full"}),
			F.Flatten(F.Pooling(x, nil, "max", ops.Attr{Name: "global_pool", Value: true})),
		).(*graph.Symbol)
	}, ops.Shape{2, 2, 7, 7}, []int{2}},
	{"misc", func() *graph.Symbol {
		x := data(0, 3, 4, 4)
		a := F.Reshape(F.MulScalar(F.PlusScalar(x, 0.5), 2), 0, -1) // (N, 48)
		a = F.Clip(F.RminusScalar(a, 1), -1.5, 1.5)
		a = F.LeakyReLU(a, "leaky", ops.Attr{Name: "slope", Value: 0.1})
		b := F.LeakyReLU(F.Transpose(x, 0, 1, 3, 2), "elu", ops.Attr{Name: "slope", Value: 0.7})
		b = F.PReLU(b, v("prelu_gamma", 3))
		b = F.Dropout(F.Reshape(b, 0, -1), 0.5)
		c := F.Dot(F.Concat(1, a, b), v("w", 5, 96), ops.Attr{Name: "transpose_b", Value: true})
		c = F.DivScalar(F.BroadcastSub(c, v("shift", 1, 5)), 3)
		return graph.Group(F.LogSoftmax(c).(*graph.Symbol), F.Softmax(c, ops.Attr{Name: "axis", Value: 0}).(*graph.Symbol))
	}, ops.Shape{2, 3, 4, 4}, []int{2, 3}},
}

// residual is a residual block: two convolutions, the input added back.
func residual() *graph.Symbol {
	x := data(0, 4, 6, 6)
	y := F.Relu(F.Convolution(x, v("c1_weight", 4, 0, 3, 3), v("c1_bias"), []int{3, 3}, 4, ops.Attr{Name: "pad", Value: []int{1, 1}}))
	y = F.Convolution(y, v("c2_weight", 4, 0, 3, 3), v("c2_bias"), []int{3, 3}, 4, ops.Attr{Name: "pad", Value: []int{1, 1}})
	return F.Relu(F.ElemwiseAdd(y, x)).(*graph.Symbol)
}

// bind returns random values for every variable of sym but "data", of the
// shapes inferred from data; variances are made positive.
func bind(t testing.TB, sym *graph.Symbol, data ops.Shape) map[string]*eager.NDArray {
	t.Helper()
	args, _, aux, err := sym.InferShape(map[string]ops.Shape{"data": data})
	if err != nil {
		t.Fatal(err)
	}
	eager.Seed(3)
	params := map[string]*eager.NDArray{}
	for i, name := range sym.ListArguments() {
		if name != "data" {
			params[name] = eager.RandomNormal(args[i]...)
		}
	}
	for i, name := range sym.ListAuxiliaryStates() {
		params[name] = eager.RandomNormal(aux[i]...)
		if strings.HasSuffix(name, "_var") {
			vs := eager.RandomUniform(aux[i]...).Float32s()
			for j := range vs {
				vs[j] += 0.5
			}
			params[name] = eager.Array(vs, aux[i]...)
		}
	}
	return params
}

// lenet is the tutorial's LeNet (internal/train), hybridized, run once
// and exported as MXNet files, then read back: the path `hybridgo
// convert` takes.
func lenet(t testing.TB) (*graph.Symbol, map[string]*eager.NDArray) {
	t.Helper()
	eager.Seed(5)
	net := train.NewLeNet()
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	net.Hybridize()
	net.Forward(eager.RandomNormal(2, 1, 28, 28))
	prefix := t.TempDir() + "/lenet"
	if err := net.Export(prefix, 0); err != nil {
		t.Fatal(err)
	}
	sym, params, err := mxnet.LoadCheckpoint(prefix, 0)
	if err != nil {
		t.Fatal(err)
	}
	return sym, params
}

func exportModel(t testing.TB, sym *graph.Symbol, params map[string]*eager.NDArray, opts onnx.Options) *onnx.Model {
	t.Helper()
	b, err := onnx.Export(sym, params, opts)
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnx.DecodeModel(b)
	if err != nil {
		t.Fatalf("reading back the exported model: %v", err)
	}
	return m
}

func opTypes(m *onnx.Model) string {
	var s []string
	for _, n := range m.Graph.Nodes {
		s = append(s, n.OpType)
	}
	return strings.Join(s, " ")
}

func TestExportStructure(t *testing.T) {
	tests := []struct {
		model string
		ops   string
	}{
		{"mlp", "Gemm Relu Gemm Tanh Gemm Softmax"},
		{"convbn", "Conv BatchNormalization Relu Conv BatchNormalization Softplus GlobalAveragePool Flatten Gemm"},
		{"residual", "Conv Relu Conv Add Relu"},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			var md model
			for _, m := range models {
				if m.name == tt.model {
					md = m
				}
			}
			sym := md.sym()
			params := bind(t, sym, md.data)
			m := exportModel(t, sym, params, onnx.Options{InputShapes: map[string]ops.Shape{"data": md.data}})
			if got := opTypes(m); got != tt.ops {
				t.Errorf("nodes %s, want %s", got, tt.ops)
			}
			if len(m.OpsetImports) != 1 || m.OpsetImports[0].Version != onnx.DefaultOpset || m.IRVersion != onnx.IRVersion {
				t.Errorf("opset %+v, IR version %d", m.OpsetImports, m.IRVersion)
			}
			g := m.Graph
			if len(g.Inputs) != 1 || g.Inputs[0].Name != "data" || g.Inputs[0].Shape[0].Param != onnx.BatchDim {
				t.Fatalf("inputs %+v: want data with a dynamic batch", g.Inputs)
			}
			for i, d := range g.Inputs[0].Shape[1:] {
				if d.Value != int64(md.data[i+1]) {
					t.Errorf("data dim %d is %+v, want %d", i+1, d, md.data[i+1])
				}
			}
			if len(g.Outputs) != 1 || g.Outputs[0].Shape[0].Param != onnx.BatchDim {
				t.Errorf("outputs %+v: want one with a dynamic batch", g.Outputs)
			}
			if len(g.Initializers) < len(params) {
				t.Errorf("%d initializers for %d parameters", len(g.Initializers), len(params))
			}
			for _, init := range g.Initializers {
				p, ok := params[init.Name]
				if !ok {
					continue
				}
				if want := 4 * p.Size(); len(init.RawData) != want || init.DataType != onnx.TypeFloat {
					t.Errorf("initializer %s: %d bytes of type %d, want %d of float", init.Name, len(init.RawData), init.DataType, want)
				}
			}
		})
	}
}

func TestExportStaticBatch(t *testing.T) {
	sym := models[0].sym()
	m := exportModel(t, sym, bind(t, sym, models[0].data), onnx.Options{StaticBatch: true, Opset: 17, InputShapes: map[string]ops.Shape{"data": {4, 20}}})
	if d := m.Graph.Inputs[0].Shape[0]; d.Value != 4 || d.Param != "" {
		t.Errorf("batch dim %+v, want 4", d)
	}
	if m.OpsetImports[0].Version != 17 {
		t.Errorf("opset %d, want 17", m.OpsetImports[0].Version)
	}
}

func TestExportLeNet(t *testing.T) {
	sym, params := lenet(t)
	m := exportModel(t, sym, params, onnx.Options{InputShapes: map[string]ops.Shape{"data": {1, 1, 28, 28}}})
	want := "Conv Relu MaxPool Conv Relu MaxPool Flatten Gemm Relu Gemm Relu Gemm"
	if got := opTypes(m); got != want {
		t.Errorf("nodes %s, want %s", got, want)
	}
}

func TestExportErrors(t *testing.T) {
	x := data(2, 3)
	tests := []struct {
		name string
		sym  *graph.Symbol
		opts onnx.Options
		want []string
	}{
		{"unsupported op", F.Sin(x).(*graph.Symbol), onnx.Options{}, []string{`node "sin`, "op sin has no ONNX export", "Convolution"}},
		{"reshape code", F.Reshape(data(2, 3, 4), 0, -3).(*graph.Symbol), onnx.Options{}, []string{"Reshape", "code -3 has no ONNX export"}},
		{"sum pooling", F.Pooling(data(1, 1, 4, 4), []int{2, 2}, "sum").(*graph.Symbol), onnx.Options{}, []string{"pool_type sum"}},
		{"opset", F.Relu(x).(*graph.Symbol), onnx.Options{Opset: 11}, []string{"opset 11"}},
		{"no data shape", F.Relu(graph.Var("data", nil, ops.Float32)).(*graph.Symbol), onnx.Options{}, []string{`input "data" has no shape`, "InputShapes"}},
		{"unknown input", F.Relu(x).(*graph.Symbol), onnx.Options{InputShapes: map[string]ops.Shape{"img": {1}}}, []string{`"img"`, "not a variable"}},
		{"take mode", F.Take(x, v("i", 2), attr("mode", "wrap")).(*graph.Symbol), onnx.Options{}, []string{"op take", "mode wrap has no ONNX export"}},
		{"layer norm statistics", F.LayerNorm(x, v("g", 3), v("b", 3), attr("output_mean_var", true)).(*graph.Symbol),
			onnx.Options{}, []string{"op LayerNorm", "output_mean_var"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := onnx.Export(tt.sym, nil, tt.opts)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestSupported(t *testing.T) {
	list := onnx.Supported()
	for _, op := range list {
		if _, ok := ops.Lookup(op); !ok {
			t.Errorf("Supported lists %s, which is not a registered op", op)
		}
		if m, ok := onnx.Mapping(op); !ok || m == "" {
			t.Errorf("Mapping(%s) = %q, %v", op, m, ok)
		}
	}
	for _, op := range []string{"Convolution", "FullyConnected", "BatchNorm", "Pooling", "Reshape", "_plus_scalar"} {
		if _, ok := onnx.Mapping(op); !ok {
			t.Errorf("%s is not supported", op)
		}
	}
	if _, ok := onnx.Mapping("sin"); ok {
		t.Error("sin should not be supported")
	}
}

func TestSaveModel(t *testing.T) {
	path := t.TempDir() + "/m.onnx"
	sym := models[2].sym()
	if err := onnx.SaveModel(path, sym, bind(t, sym, models[2].data), onnx.Options{InputShapes: map[string]ops.Shape{"data": models[2].data}}); err != nil {
		t.Fatal(err)
	}
	if err := onnx.SaveModel(path, F.Sin(data(1)).(*graph.Symbol), nil, onnx.Options{}); err == nil {
		t.Fatal("saving an unsupported graph gave no error")
	}
	m, err := onnx.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := opTypes(m); got != "Conv Relu Conv Add Relu" {
		t.Errorf("the failed save changed the file: %s", got)
	}
}

func TestExportUnfuses(t *testing.T) {
	g, _ := graph.FuseActivation(residual().Graph())
	fused := 0
	for _, n := range g.Nodes {
		if !n.IsVar() && strings.HasPrefix(n.Op.Name(), "_fused_") {
			fused++
		}
	}
	if fused != 1 {
		t.Fatalf("the fused residual block has %d fused nodes, want 1", fused)
	}
	sym := graph.FromEntries(g.Outputs...)
	m := exportModel(t, sym, bind(t, sym, ops.Shape{2, 4, 6, 6}), onnx.Options{InputShapes: map[string]ops.Shape{"data": {2, 4, 6, 6}}})
	if got := opTypes(m); got != "Conv Relu Conv Add Relu" {
		t.Errorf("nodes %s, want the unfused Conv Relu Conv Add Relu", got)
	}
}
