package onnx_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/format/onnx"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// group makes one symbol of several outputs.
func group(ts ...ops.Tensor) *graph.Symbol {
	syms := make([]*graph.Symbol, len(ts))
	for i, t := range ts {
		syms[i] = t.(*graph.Symbol)
	}
	return graph.Group(syms...)
}

func attr(name string, value any) ops.Attr { return ops.Attr{Name: name, Value: value} }

// opModels use the ops of convert_more.go, each in the forms whose ONNX
// differs; TestONNXRuntime runs them with the models of export_test.go.
var opModels = []model{
	{"softmax_output", func() *graph.Symbol {
		x := data(0, 3, 2, 2)
		return group(
			F.SoftmaxOutput(x, v("flat_label")),
			F.SoftmaxOutput(x, v("multi_label"), attr("multi_output", true)),
			F.SoftmaxOutput(x, v("last_label"), attr("preserve_shape", true)),
			F.SoftmaxOutput(F.Flatten(x), v("label")))
	}, ops.Shape{2, 3, 2, 2}, []int{2}}, // the labels keep the traced batch
	{"indexing", func() *graph.Symbol {
		x := data(0, 4)
		indices := F.MulScalar(x, 3) // clipped into range, truncated
		return group(
			F.Embedding(indices, v("embed_weight", 5, 3), 5, 3),
			F.Take(v("table", 6, 2), indices),
			F.Take(x, v("columns", 3), attr("axis", 1)))
	}, ops.Shape{2, 4}, []int{2, 3}},
	{"slicing", func() *graph.Symbol {
		x := data(0, 3, 6)
		return group(
			F.Slice(x, []int{ops.None, 1, -5}, []int{ops.None, ops.None, 5}, ops.SliceStep(ops.None, 1, 2)),
			F.Slice(x, []int{ops.None, 2, ops.None}, []int{ops.None, 0, 1}, ops.SliceStep(1, -1, -2)),
			F.SliceAxis(x, 2, 1, -1),
			F.SliceAxis(x, -1, -3, ops.None))
	}, ops.Shape{2, 3, 6}, []int{2, 4}},
	{"reductions", func() *graph.Symbol {
		x := data(0, 3, 4)
		return group(
			F.Sum(x, attr("axis", []int{1}), attr("keepdims", true)),
			F.Sum(x),
			F.Mean(x, attr("axis", []int{1, 2})),
			F.Max(x, attr("axis", []int{1}), attr("exclude", true)),
			F.Min(x, attr("keepdims", true)),
			F.Prod(x, attr("axis", []int{-1})))
	}, ops.Shape{2, 3, 4}, []int{2, 5}},
	{"deconvolution", func() *graph.Symbol {
		x := data(0, 2, 5, 5)
		return group(
			F.Deconvolution(x, v("d1_weight", 2, 3, 3, 3), v("d1_bias"), []int{3, 3}, 3,
				attr("stride", []int{2, 2}), attr("pad", []int{1, 1}), attr("adj", []int{1, 0}), attr("no_bias", false)),
			F.Deconvolution(x, v("d2_weight", 2, 2, 2, 3), nil, []int{2, 3}, 4,
				attr("num_group", 2), attr("dilate", []int{2, 1})),
			F.Deconvolution(x, v("d3_weight", 2, 1, 3, 3), nil, []int{3, 3}, 1,
				attr("stride", []int{2, 2}), attr("target_shape", []int{10, 9})))
	}, ops.Shape{2, 2, 5, 5}, []int{2, 3}},
	{"layer_norm", func() *graph.Symbol {
		x := data(0, 3, 4)
		return group(
			F.LayerNorm(x, v("ln1_gamma", 4), v("ln1_beta", 4)),
			F.LayerNorm(x, v("ln2_gamma", 3), v("ln2_beta", 3), attr("axis", 1), attr("eps", 0.1)))
	}, ops.Shape{2, 3, 4}, []int{2, 3}},
	{"shapes", func() *graph.Symbol {
		x := data(0, 3, 4)
		rows := F.Sum(x, attr("axis", []int{1, 2}))
		return group(
			F.BatchDot(x, x, attr("transpose_b", true)),
			F.BatchDot(x, x, attr("transpose_a", true)),
			F.Cast(F.Cast(F.MulScalar(x, 3), ops.Int32), ops.Float32),
			F.Squeeze(F.ExpandDims(x, 1), attr("axis", []int{1})),
			F.Squeeze(F.ExpandDims(F.ExpandDims(x, -1), 1)),
			F.Stack(1, x, F.Square(x)),
			F.Stack(-1, x, x, x),
			F.Tile(x, 2),
			F.Tile(x, 2, 1, 1, 2),
			F.Repeat(x, 2, attr("axis", 1)),
			F.Repeat(x, 3, attr("axis", -1)),
			F.Repeat(x, 2),
			F.Rsqrt(F.PlusScalar(F.Abs(x), 1)),
			F.BroadcastTo(F.ExpandDims(x, 1), 0, 2, 0, 0),
			F.Where(F.Relu(x), x, F.Square(x)),
			F.Where(rows, x, F.Negative(x)),
			F.Argmax(x, 1),
			F.Argmin(x, -1, attr("keepdims", true)),
			F.ArgmaxFlat(x))
	}, ops.Shape{2, 3, 4}, []int{2, 5}},
	{"split", func() *graph.Symbol {
		x := data(0, 3, 4)
		parts := F.Split(x, 2, 2)
		rows := F.Split(x, 3, 1, ops.SqueezeAxis())
		return group(parts[1], parts[0], rows[2], rows[0], rows[1])
	}, ops.Shape{2, 3, 4}, []int{2, 3}},
	{"created", func() *graph.Symbol {
		x := data(0, 3, 4)
		return group(
			F.BroadcastAdd(x, F.Zeros(ops.Shape{3, 4})),
			F.BroadcastMul(x, F.Ones(ops.Shape{1, 4})),
			F.BroadcastSub(x, F.Full(ops.Shape{3, 1}, 2.5)),
			F.BroadcastAdd(x, F.Reshape(F.Arange(0, 6, 0.5), 3, 4)),
			F.BroadcastMul(x, F.Eye(3, attr("M", 4), attr("k", 1))))
	}, ops.Shape{2, 3, 4}, []int{2, 3}},
}

// TestExportDropsLabel exports SoftmaxOutput as Gluon's files hold it,
// its label a variable with no value: the model must not ask for it.
func TestExportDropsLabel(t *testing.T) {
	sym := opModels[0].sym()
	params := bind(t, sym, opModels[0].data)
	for _, label := range []string{"flat_label", "multi_label", "last_label", "label"} {
		delete(params, label)
	}
	m := exportModel(t, sym, params, onnx.Options{InputShapes: map[string]ops.Shape{"data": opModels[0].data}})
	if len(m.Graph.Inputs) != 1 || m.Graph.Inputs[0].Name != "data" {
		t.Errorf("inputs %+v, want data alone", m.Graph.Inputs)
	}
}
