package ops_test

import (
	"math"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/ops"
)

// TestIm2colIsConvolution checks that the filters times im2col's columns
// are the convolution, and that col2im sums overlapping blocks.
func TestIm2colIsConvolution(t *testing.T) {
	F := eager.F
	const n, c, h, w, nf = 2, 3, 5, 6, 4
	xs := make([]float64, n*c*h*w)
	for i := range xs {
		xs[i] = math.Sin(float64(i))
	}
	ws := make([]float64, nf*c*9)
	for i := range ws {
		ws[i] = math.Cos(float64(i))
	}
	x, wt := eager.Array(xs, n, c, h, w), eager.Array(ws, nf, c, 3, 3)
	attrs := []ops.Attr{{"stride", []int{2, 1}}, {"pad", []int{1, 1}}, {"dilate", []int{1, 2}}}
	col := F.Im2col(x, []int{3, 3}, attrs...)
	conv := F.Convolution(x, wt, nil, []int{3, 3}, nf, append(attrs, ops.Attr{"no_bias", true})...)
	cs := nd(conv).Shape()
	got := F.Dot(F.Reshape(wt, nf, -1), F.Transpose(col, 1, 0, 2)) // (nf, n, L)
	got = F.Transpose(got, 1, 0, 2)
	if i := optest.FirstDiff(nd(got).Float64s(), nd(F.Reshape(conv, cs[0], cs[1], -1)).Float64s(), 1e-12, 1e-12); i >= 0 {
		t.Errorf("filters · im2col differs from Convolution at %d", i)
	}

	// 1-D blocks of width 2, stride 1, over 3 pixels: the middle pixel is
	// in both blocks, so col2im of ones counts 1, 2, 1.
	ones := F.OnesLike(F.Im2col(eager.Array([]float64{0, 0, 0}, 1, 1, 3), []int{2}))
	checkArray(t, "col2im of ones", F.Col2im(ones, []int{3}, []int{2}), ops.Shape{1, 1, 3}, []float64{1, 2, 1}, 0)
}

func TestContribSmallOps(t *testing.T) {
	F := eager.F
	old := eager.Array([]float64{1, 2, 3, 4, 5, 6}, 3, 2)
	idx := eager.Array([]float64{2, 0}, 2)
	nw := eager.Array([]float64{10, 20, 30, 40}, 2, 2)
	checkArray(t, "index_copy", F.IndexCopy(old, idx, nw), ops.Shape{3, 2}, []float64{30, 40, 3, 4, 10, 20}, 0)
	old.AttachGrad()
	nw.AttachGrad()
	var y *eager.NDArray
	eager.Record(func() { y = nd(F.IndexCopy(old, idx, nw)) })
	head := eager.Array([]float64{1, 2, 3, 4, 5, 6}, 3, 2)
	grads, err := eager.Grad([]*eager.NDArray{y}, []*eager.NDArray{old, nw}, []*eager.NDArray{head}, false, false)
	if err != nil {
		t.Fatal(err)
	}
	checkArray(t, "index_copy d/dold", grads[0], ops.Shape{3, 2}, []float64{0, 0, 3, 4, 0, 0}, 0)
	checkArray(t, "index_copy d/dnew", grads[1], ops.Shape{2, 2}, []float64{5, 6, 1, 2}, 0)

	checkArray(t, "quadratic", F.Quadratic(eager.Array([]float64{-1, 0, 2}, 3), 2, 1, -3), ops.Shape{3}, []float64{-2, -3, 7}, 0)

	x := eager.Array([]float64{-1.5, -0.2, 0, 0.5, 2.4}, 5)
	checkArray(t, "round_ste", F.RoundSTE(x), ops.Shape{5}, []float64{-2, 0, 0, 1, 2}, 0)
	checkArray(t, "sign_ste", F.SignSTE(x), ops.Shape{5}, []float64{-1, -1, 0, 1, 1}, 0)
	x.AttachGrad()
	eager.Record(func() { y = nd(F.Sum(F.Mul(F.RoundSTE(x), F.SignSTE(x)))) })
	g, err := eager.Grad([]*eager.NDArray{y}, []*eager.NDArray{x}, nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	// d/dx round(x)·sign(x) with both straight through: sign(x) + round(x).
	checkArray(t, "ste gradients", g[0], ops.Shape{5}, []float64{-3, -1, 0, 2, 3}, 0)

	// Histograms: equal bins, and given edges (values outside are dropped,
	// the last edge belongs to the last bin).
	data := eager.Array([]float64{0, 0.1, 0.5, 0.99, 1, 1.5, -0.1}, 7)
	counts, edges := F.Histogram(data, 2, 0, 1)
	checkArray(t, "histogram counts", counts, ops.Shape{2}, []float64{2, 3}, 0)
	checkArray(t, "histogram edges", edges, ops.Shape{3}, []float64{0, 0.5, 1}, 0)
	out := F.Call("_histogram", []ops.Tensor{data, eager.Array([]float64{-1, 0, 1, 2}, 4)})
	checkArray(t, "histogram by bins", out[0], ops.Shape{3}, []float64{1, 4, 2}, 0)
	if nd(out[0]).DType() != ops.Int64 {
		t.Errorf("histogram counts are %v, want int64", nd(out[0]).DType())
	}
	err = panicErr(func() { F.Call("_histogram", []ops.Tensor{data, eager.Array([]float64{1, 0}, 2)}) })
	wantErr(t, "unsorted bins", err, "must increase")

	a := eager.Array([]float64{1, math.NaN(), 3}, 3)
	b := eager.Array([]float64{1.000001, math.NaN(), 3}, 3)
	checkArray(t, "allclose", F.AllClose(a, b), ops.Shape{}, []float64{1}, 0)
	checkArray(t, "allclose equal_nan=False", F.AllClose(a, b, ops.Attr{"equal_nan", false}), ops.Shape{}, []float64{0}, 0)
	checkArray(t, "allclose rtol", F.AllClose(a, b, ops.Attr{"rtol", 1e-9}), ops.Shape{}, []float64{0}, 0)

	fin := eager.Array([]float64{1, 2}, 2)
	checkArray(t, "all_finite", F.AllFinite(fin), ops.Shape{1}, []float64{1}, 0)
	checkArray(t, "all_finite NaN", F.AllFinite(a), ops.Shape{1}, []float64{0}, 0)
	checkArray(t, "multi_all_finite", F.AllFinite(fin, fin, eager.Array([]float64{math.Inf(-1)}, 1)), ops.Shape{1}, []float64{0}, 0)
	checkArray(t, "multi_all_finite finite", F.AllFinite(fin, fin), ops.Shape{1}, []float64{1}, 0)
	_, err = ops.MustLookup("all_finite").ParseAttrs(map[string]string{"init_output": "False"})
	wantErr(t, "init_output", err, "init_output=False")

	// _contrib_gradientmultiplier: the identity, its gradient scaled.
	gm := eager.Array([]float64{1, -2}, 2)
	gm.AttachGrad()
	eager.Record(func() { y = nd(F.Sum(F.Mul(F.GradientMultiplier(gm, -0.5), gm))) })
	g, err = eager.Grad([]*eager.NDArray{y}, []*eager.NDArray{gm}, nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	// d/dx of m(x)·x with m's gradient scaled: x·(-0.5) + x.
	checkArray(t, "gradientmultiplier", g[0], ops.Shape{2}, []float64{0.5, -1}, 1e-12)

	// multi_sum_sq and its gradient; index_array.
	a1, a2 := eager.Array([]float32{1, -2}, 2), eager.Array([]float32{3}, 1)
	checkArray(t, "multi_sum_sq", F.MultiSumSq(a1, a2), ops.Shape{2}, []float64{5, 9}, 0)
	a1.AttachGrad()
	a2.AttachGrad()
	eager.Record(func() { y = nd(F.Sum(F.Mul(F.MultiSumSq(a1, a2), eager.Array([]float32{1, 10}, 2)))) })
	g, err = eager.Grad([]*eager.NDArray{y}, []*eager.NDArray{a1, a2}, nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	checkArray(t, "multi_sum_sq d/da1", g[0], ops.Shape{2}, []float64{2, -4}, 0)
	checkArray(t, "multi_sum_sq d/da2", g[1], ops.Shape{1}, []float64{60}, 0)
	grid := eager.Array(make([]float64, 6), 2, 3)
	checkArray(t, "index_array", F.IndexArray(grid), ops.Shape{2, 3, 2}, []float64{0, 0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2}, 0)
	checkArray(t, "index_array axes", F.IndexArray(grid, -1), ops.Shape{2, 3, 1}, []float64{0, 1, 2, 0, 1, 2}, 0)
}
