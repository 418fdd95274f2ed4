package graph_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// resnetBlocks traces the layers FoldBatchNorm meets in ResNet and
// MobileNet v2: a ResNet v1 basic block with a downsampling branch
// (convolution, BatchNorm, relu, convolution, BatchNorm, sum, relu), a
// depthwise convolution with BatchNorm and relu6, and, not to be folded, a
// BatchNorm whose convolution's output is read twice and one that
// normalises along another axis than the channels.
func resnetBlocks(t *testing.T, dtype ops.DType) (*graph.Graph, map[string]*eager.NDArray) {
	t.Helper()
	tr := graph.NewTracer()
	F := tr.F()
	bind := map[string]*eager.NDArray{}
	eager.Seed(5)
	v := func(name string, shape ...int) ops.Tensor {
		bind[name] = eager.RandomNormal(shape...).AsType(dtype)
		return graph.Var(name, ops.Shape(shape), dtype)
	}
	bn := func(x ops.Tensor, name string, c int, attrs ...ops.Attr) ops.Tensor {
		variance := make([]float32, c)
		for i := range variance {
			variance[i] = 0.5 + 0.3*float32(i)
		}
		bind[name+"_var"] = eager.Array(variance, c).AsType(dtype)
		return F.BatchNorm(x, v(name+"_gamma", c), v(name+"_beta", c), v(name+"_mean", c),
			graph.Var(name+"_var", ops.Shape{c}, dtype), append([]ops.Attr{{Name: "fix_gamma", Value: false}}, attrs...)...)
	}
	pad1 := ops.Attr{Name: "pad", Value: []int{1, 1}}
	x := v("x", 2, 4, 9, 9)
	h := F.Relu(bn(F.Convolution(x, v("w1", 6, 4, 3, 3), nil, []int{3, 3}, 6, pad1), "bn1", 6))
	h = bn(F.Convolution(h, v("w2", 6, 6, 3, 3), v("b2", 6), []int{3, 3}, 6, pad1), "bn2", 6)
	down := bn(F.Convolution(x, v("wd", 6, 4, 1, 1), nil, []int{1, 1}, 6), "bnd", 6)
	h = F.Activation(F.ElemwiseAdd(h, down), "relu")
	dw := F.Convolution(h, v("wdw", 6, 1, 3, 3), nil, []int{3, 3}, 6, pad1,
		ops.Attr{Name: "num_group", Value: 6}, ops.Attr{Name: "stride", Value: []int{2, 2}})
	d := F.Clip(bn(dw, "bndw", 6), 0, 6)
	e := F.Convolution(d, v("we", 6, 6, 1, 1), nil, []int{1, 1}, 6)
	twice := F.Add(bn(e, "bne", 6), e)
	other := bn(F.Convolution(d, v("wo", 5, 6, 1, 1), nil, []int{1, 1}, 5), "bno", 5, ops.Attr{Name: "axis", Value: 2})
	return graph.NewGraph([]graph.Entry{twice.(*graph.Symbol).Entries()[0], other.(*graph.Symbol).Entries()[0]}), bind
}

// closeOutputs checks that two evaluations agree to float32 rounding,
// relative to each output's largest magnitude.
func closeOutputs(t *testing.T, what string, got, want []*eager.NDArray) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d outputs, want %d", what, len(got), len(want))
	}
	for i := range want {
		g, w := got[i].Float64s(), want[i].Float64s()
		if !got[i].Shape().Equal(want[i].Shape()) {
			t.Fatalf("%s: output %d has shape %v, want %v", what, i, got[i].Shape(), want[i].Shape())
		}
		scale := 0.0
		for _, x := range w {
			scale = math.Max(scale, math.Abs(x))
		}
		for k := range w {
			if !(math.Abs(g[k]-w[k]) <= 1e-5*scale) { // NaN fails
				t.Fatalf("%s: output %d differs at %d: %v, want %v", what, i, k, g[k], w[k])
			}
		}
	}
}

func TestFoldBatchNorm(t *testing.T) {
	for _, dtype := range []ops.DType{ops.Float32, ops.Float64} {
		t.Run(dtype.String(), func(t *testing.T) { testFoldBatchNorm(t, dtype) })
	}
}

func testFoldBatchNorm(t *testing.T, dtype ops.DType) {
	g, bind := resnetBlocks(t, dtype)
	g, _, err := graph.InferShapes(g)
	if err != nil {
		t.Fatal(err)
	}
	before := g.String()
	out, rep := graph.FoldBatchNorm(g)
	// bn1, bn2, bnd, bndw folded; bn2's sum with the downsampling branch
	// fused; bne (its convolution is read twice) and bno (axis 2) not.
	if len(rep.Changes) != 5 {
		t.Fatalf("want 5 changes, got:\n%s", rep)
	}
	text := out.String()
	for _, want := range []string{"_fused_Convolution_BatchNorm(", "_fused_Convolution_BatchNorm_add(", "BatchNorm("} {
		if !strings.Contains(text, want) {
			t.Errorf("folded graph lacks %s:\n%s", want, text)
		}
	}
	if n := strings.Count(text, " BatchNorm("); n != 2 {
		t.Errorf("%d BatchNorm nodes left, want 2 (bne and bno):\n%s", n, text)
	}
	checkText(t, "input unchanged", g.String(), before)
	want, err := graph.Eval(g, bind, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := graph.Eval(out, bind, false)
	if err != nil {
		t.Fatal(err)
	}
	closeOutputs(t, "folded", got, want)

	// With the other passes, relu joins the folded nodes.
	opt, _, err := graph.Optimize(g, graph.InferencePassOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"_fused_Convolution_BatchNorm_relu(", "_fused_Convolution_BatchNorm_add_relu(", "cap=6"} {
		if !strings.Contains(opt.String(), want) {
			t.Errorf("optimized graph lacks %s:\n%s", want, opt.String())
		}
	}
	if strings.Contains(opt.String(), "clip(") {
		t.Errorf("relu6 after the depthwise convolution was not fused:\n%s", opt.String())
	}
	if got, err = graph.Eval(opt, bind, false); err != nil {
		t.Fatal(err)
	}
	closeOutputs(t, "optimized", got, want)
	if _, rep := graph.FoldBatchNorm(out); len(rep.Changes) != 0 {
		t.Errorf("second run is not at the fixed point: %s", rep)
	}
	if opt, _, _ := graph.Optimize(g, graph.DefaultPassOptions()); strings.Contains(opt.String(), "_fused_Convolution_BatchNorm") {
		t.Errorf("the default passes folded a BatchNorm:\n%s", opt.String())
	}
}

// An executable folds BatchNorm only for calls outside Record and
// training: in training mode BatchNorm normalises with the batch's
// statistics, and the gradients are those of the unfolded graph.
func TestFoldBatchNormOnlyOutsideTraining(t *testing.T) {
	g, bind := resnetBlocks(t, ops.Float32)
	sym := graph.FromEntries(g.Outputs...)
	for _, static := range []bool{false, true} {
		cop, args := compileFor(t, sym, bind, false, graph.CompileOptions{StaticAlloc: static})
		inference, err := graph.Eval(g, bind, false)
		if err != nil {
			t.Fatal(err)
		}
		ran := map[string]bool{}
		cop.SetOpHook(func(_, op string, _ *eager.NDArray) { ran[op] = true }, false)
		got, err := cop.Call(args...)
		if err != nil {
			t.Fatal(err)
		}
		closeOutputs(t, "call outside training", got, inference)
		if !ran["_fused_Convolution_BatchNorm_add_relu"] || !ran["_fused_Convolution_BatchNorm_relu"] {
			t.Errorf("a call outside training ran %v, without the folded BatchNorms", ran)
		}
		clear(ran)

		training, err := graph.Eval(g, bind, true)
		if err != nil {
			t.Fatal(err)
		}
		eager.TrainMode(func() { got, err = cop.Call(args...) })
		if err != nil {
			t.Fatal(err)
		}
		closeOutputs(t, "call in training mode", got, training)
		for op := range ran {
			if strings.HasPrefix(op, "_fused_Convolution_BatchNorm") {
				t.Errorf("a call in training mode ran %s", op)
			}
		}
		cop.SetOpHook(nil, false)

		// Both training runs updated the running statistics.
		if inference, err = graph.Eval(g, bind, false); err != nil {
			t.Fatal(err)
		}
		outs, err := cop.Forward(false, args...)
		if err != nil {
			t.Fatal(err)
		}
		closeOutputs(t, "Forward outside training", outs, inference)
		if _, err := cop.Backward(eager.Ones(outs[0].Shape()...), eager.Ones(outs[1].Shape()...)); err != nil {
			t.Fatalf("Backward after Forward: %v", err)
		}
	}
}
