package onnx_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/onnx"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// TestONNXRuntimeMoreOps exports the ops of convert_everyday.go at the first
// and the last opset and runs them with ONNX Runtime;
// TestImportReadsMoreOps reads back what Import converts.
func TestONNXRuntimeMoreOps(t *testing.T) {
	modules := onnxRuntime(t)
	dir := t.TempDir()
	var runs []ortRun
	var checks []check
	for _, opset := range []int{onnx.DefaultOpset, onnx.MaxOpset} {
		for _, md := range moreOpModels {
			sym := md.sym()
			r, c := ortCase(t, dir, fmt.Sprintf("%s_opset%d", md.name, opset), opset, sym, bind(t, sym, md.data), md.data, md.batches)
			runs, checks = append(runs, r...), append(checks, c...)
		}
	}
	checkResults(t, checks, runORT(t, modules, dir, runs))
}

// moreOpModels use the ops of convert_everyday.go, each in the forms whose
// ONNX differs.
var moreOpModels = []model{
	{"axes_pad_sort", func() *graph.Symbol {
		x := data(0, 3, 4, 5)
		values, indices := F.TopK(x, 2, -1)
		return group(
			F.SwapAxes(x, 1, 3),
			F.Pad(x, "constant", []int{0, 0, 0, 0, 1, 2, 2, 1}, attr("constant_value", 0.5)),
			F.Pad(x, "edge", []int{0, 0, 0, 0, 2, 1, 0, 3}),
			F.Pad(x, "reflect", []int{0, 0, 0, 0, 1, 2, 3, 1}),
			values, indices,
			F.Call("topk", []ops.Tensor{x}, attr("k", 3), attr("axis", 1), attr("ret_typ", "value"), attr("is_ascend", true))[0],
			F.Call("topk", []ops.Tensor{x}, attr("k", 1), attr("ret_typ", "indices"), attr("dtype", ops.Int32))[0],
			F.Sort(x, 2),
			F.Sort(x, -1, attr("is_ascend", false)),
			F.ArgSort(x, 1))
	}, ops.Shape{2, 3, 4, 5}, []int{2, 3}},
	{"split_gather", func() *graph.Symbol {
		x := data(0, 3, 6)
		parts := F.SplitV2(x, 2, []int{0, 2, 5})
		late := F.SplitV2(x, -1, []int{1, 4})
		rows := F.SplitV2(x, 1, []int{0, 1, 2}, attr("squeeze_axis", true))
		first := F.Reshape(F.Arange(0, 2, 1), 1, 2)
		pairs := F.Stack(0, F.Arange(0, 2, 1), F.Arange(1, 3, 1))
		rowsAt := F.Reshape(F.Arange(3, 0, -2), 1, 2) // rows 3 and 1
		return group(parts[0], parts[2], late[0], late[1], rows[1],
			F.GatherND(x, first), F.GatherND(x, pairs),
			F.ScatterND(F.SliceAxis(x, 0, 0, 2), rowsAt, 4, 3, 6),
			F.SequenceReverse(F.SwapAxes(x, 0, 1), nil),
			F.SequenceReverse(F.SwapAxes(x, 0, 2), F.Arange(2, 5, 1)))
	}, ops.Shape{2, 3, 6}, []int{2, 3}},
	{"norms_resize", func() *graph.Symbol {
		x := data(0, 4, 3, 5)
		return group(
			F.InstanceNorm(x, v("in_gamma", 4), v("in_beta", 4), attr("eps", 0.01)),
			F.GroupNorm(x, v("gn_gamma", 2), v("gn_beta", 2), 2),
			F.L2Normalization(x, "instance"),
			F.L2Normalization(x, "channel"),
			F.L2Normalization(x, "spatial", attr("eps", 0.1)),
			F.FullyConnected(x, v("fc_weight", 3, 60), v("fc_bias", 3, 1), 3),
			F.FullyConnected(x, v("fc2_weight", 2, 5), v("fc2_bias", 2, 1), 2, attr("flatten", false)),
			F.UpSampling(x, 2),
			F.BilinearResize2D(x, 5, 8),
			F.BilinearResize2D(x, 2, 3, attr("align_corners", false)),
			F.BilinearResize2D(x, 6, 7, attr("align_corners", false)))
	}, ops.Shape{2, 4, 3, 5}, []int{2, 3}},
}

// TestImportReadsMoreOps exports the more everyday ops whose ONNX Import
// reads (InstanceNormalization, GatherND, ScatterND, Pad, TopK, Resize,
// and Transpose, Split, Reshape, Cast around them), imports the model
// back and compares the outputs.
func TestImportReadsMoreOps(t *testing.T) {
	sym := func() *graph.Symbol {
		x := data(0, 4, 3, 5)
		pairs := F.Stack(0, F.Arange(0, 2, 1), F.Arange(1, 3, 1))
		parts := F.SplitV2(x, 3, []int{0, 2})
		topValues, topIndices := F.TopK(x, 3, -1)
		return group(
			F.InstanceNorm(x, v("in_gamma", 4), v("in_beta", 4), attr("eps", 0.01)),
			F.GroupNorm(x, v("gn_gamma", 2), v("gn_beta", 2), 2),
			F.SwapAxes(x, 1, 3),
			F.GatherND(x, pairs),
			F.GatherND(x, F.Reshape(F.Arange(0, 2, 1), 1, 2)),
			F.ScatterND(v("sc_updates", 2, 3, 5), F.Reshape(F.Arange(3, 0, -2), 1, 2), 5, 3, 5),
			topValues, topIndices,
			F.Call("topk", []ops.Tensor{x}, attr("k", 2), attr("axis", 1), attr("ret_typ", "value"), attr("is_ascend", true))[0],
			F.Sort(x, 2, attr("is_ascend", false)),
			F.ArgSort(x, -1),
			F.UpSampling(x, 3),
			F.BilinearResize2D(x, 5, 8),
			F.BilinearResize2D(x, 4, 7, attr("align_corners", false)),
			parts[0], parts[1],
			F.Pad(x, "constant", []int{0, 0, 0, 0, 1, 2, 2, 1}, attr("constant_value", 0.5)),
			F.Pad(x, "edge", []int{0, 0, 0, 0, 2, 1, 0, 3}),
			F.Pad(x, "reflect", []int{0, 0, 1, 0, 1, 2, 3, 1}),
			F.Relu(F.Pad(x, "constant", []int{0, 0, 0, 0, 1, 1, 2, 2})))
	}()
	shape := ops.Shape{2, 4, 3, 5}
	params := bind(t, sym, shape)
	m := exportModel(t, sym, params, onnx.Options{InputShapes: map[string]ops.Shape{"data": shape}})
	im, err := onnx.Import(m)
	if err != nil {
		t.Fatal(err)
	}
	x := eager.RandomNormal(3, 4, 3, 5)
	want := evalAt(t, sym, params, "data", x)
	got := evalAt(t, im.Symbol, im.Params, "data", x)
	if len(got) != len(want) {
		t.Fatalf("%d outputs, want %d", len(got), len(want))
	}
	for i := range want {
		if !got[i].Shape().Equal(want[i].Shape()) {
			t.Errorf("output %d: shape %v, want %v", i, got[i].Shape(), want[i].Shape())
			continue
		}
		g, w := got[i].Float64s(), want[i].Float64s()
		for j := range w {
			if math.Abs(g[j]-w[j]) > 1e-5+1e-5*math.Abs(w[j]) {
				t.Errorf("output %d element %d: %v, want %v", i, j, g[j], w[j])
				break
			}
		}
	}
}

func init() {
	moreOpModels = append(moreOpModels, model{"lrn_blocks", func() *graph.Symbol {
		x := data(0, 8, 4, 6)
		return group(
			F.LRN(x, 3),
			F.LRN(x, 5, attr("alpha", 0.01), attr("beta", 0.5), attr("knorm", 1.5)),
			F.DepthToSpace(x, 2),
			F.SpaceToDepth(x, 2),
			F.HardSigmoid(x),
			F.HardSigmoid(x, attr("alpha", 0.3), attr("beta", 0.4)),
			F.Log10(F.Exp(x)),
			upBilinear(x, 8, 2), upBilinear(x, 8, 3))
	}, ops.Shape{2, 8, 4, 6}, []int{2, 3}})
}

// upBilinear is UpSampling with sample_type bilinear, its weight a parameter.
func upBilinear(x ops.Tensor, channels, scale int) ops.Tensor {
	k := 2*scale - scale%2
	w := v(fmt.Sprintf("up%d_weight", scale), channels, 1, k, k)
	return F.Call("UpSampling", []ops.Tensor{x, w}, attr("scale", scale), attr("sample_type", "bilinear"),
		attr("num_filter", channels), attr("num_args", 2))[0]
}

func init() {
	moreOpModels = append(moreOpModels, model{"misc_ops", func() *graph.Symbol {
		x := data(0, 3, 4, 5)
		return group(
			F.AMPCast(x, ops.Float64), F.ArgmaxChannel(F.Negative(x)),
			F.ArgmaxChannel(x),
			F.SoftmaxActivation(x),
			F.SoftmaxActivation(x, attr("mode", "channel")),
			F.SquareSum(x, attr("axis", ops.Tuple{1, 3})),
			F.SquareSum(x, attr("axis", 2), attr("keepdims", true)),
			F.DivSqrtDim(x),
			F.Add(F.SliceAxis(x, 3, 0, 4), F.Linspace(-1, 2, 4)))
	}, ops.Shape{2, 3, 4, 5}, []int{2, 3}})
}
