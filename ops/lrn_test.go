package ops_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

func TestLRNValues(t *testing.T) {
	F := eager.F
	x := eager.Array([]float64{1, 2, 3}).Reshape(1, 3, 1, 1)
	y := F.LRN(x, 3, ops.Attr{"alpha", 3}, ops.Attr{"beta", 1}, ops.Attr{"knorm", 1})
	checkArray(t, "LRN", y, ops.Shape{1, 3, 1, 1}, []float64{1.0 / 6, 2.0 / 15, 3.0 / 14}, 1e-12)
	expectPanic(t, "even nsize", func() { F.LRN(x, 2) }, "nsize=2")
}

func TestAdaptiveAvgPooling2D(t *testing.T) {
	F := eager.F
	x := eager.Array([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9}).Reshape(1, 1, 3, 3)
	// Windows rows [0, 2) and [1, 3), and the same columns.
	checkArray(t, "2x2 of 3x3", F.AdaptiveAvgPooling2D(x, 2, 2), ops.Shape{1, 1, 2, 2}, []float64{3, 4, 6, 7}, 1e-12)
	checkArray(t, "default", F.Call("_contrib_AdaptiveAvgPooling2D", []ops.Tensor{x})[0], ops.Shape{1, 1, 1, 1}, []float64{5}, 1e-12)
	got := kaGrad(t, x, nil, func(x ops.Tensor) ops.Tensor { return F.AdaptiveAvgPooling2D(x, 2, 2) })
	checkArray(t, "gradient", eager.Array(got), ops.Shape{9}, []float64{0.25, 0.5, 0.25, 0.5, 1, 0.5, 0.25, 0.5, 0.25}, 1e-12)
}

// The example of MXNet's depth_to_space documentation, and back.
func TestDepthToSpace(t *testing.T) {
	F := eager.F
	v := make([]float64, 24)
	for i := range v {
		v[i] = float64(i)
	}
	x := eager.Array(v).Reshape(1, 4, 2, 3)
	y := F.DepthToSpace(x, 2)
	checkArray(t, "depth_to_space", y, ops.Shape{1, 1, 4, 6},
		[]float64{0, 6, 1, 7, 2, 8, 12, 18, 13, 19, 14, 20, 3, 9, 4, 10, 5, 11, 15, 21, 16, 22, 17, 23}, 0)
	checkArray(t, "space_to_depth", F.SpaceToDepth(y, 2), ops.Shape{1, 4, 2, 3}, v, 0)
	expectPanic(t, "channels", func() { F.DepthToSpace(x, 3) }, "block_size²=9")
}

func TestCumsum(t *testing.T) {
	F := eager.F
	x := eager.Array([]float64{1, 2, 3, 4, 5, 6}).Reshape(2, 3)
	checkArray(t, "flattened", F.Cumsum(x), ops.Shape{6}, []float64{1, 3, 6, 10, 15, 21}, 0)
	checkArray(t, "axis 0", F.Cumsum(x, ops.Axis(0)), ops.Shape{2, 3}, []float64{1, 2, 3, 5, 7, 9}, 0)
	checkArray(t, "axis -1", F.Call("cumsum", []ops.Tensor{x}, ops.Axis(-1))[0], ops.Shape{2, 3}, []float64{1, 3, 6, 4, 9, 15}, 0)
	if d := F.Cumsum(eager.Array([]bool{true, false, true})).DType(); d != ops.Int64 {
		t.Errorf("cumsum of bool gives %v, want int64", d)
	}
	got := kaGrad(t, eager.Array([]float64{1, 2, 3}), []float64{1, 10, 100}, func(x ops.Tensor) ops.Tensor { return F.Cumsum(x) })
	checkArray(t, "gradient", eager.Array(got), ops.Shape{3}, []float64{111, 110, 100}, 0)
}

func TestMoments(t *testing.T) {
	F := eager.F
	x := eager.Array([]float64{1, 2, 3, 4, 6, 8}).Reshape(2, 3)
	m, v := F.Moments(x, []int{1})
	checkArray(t, "mean", m, ops.Shape{2}, []float64{2, 6}, 1e-12)
	checkArray(t, "var", v, ops.Shape{2}, []float64{2.0 / 3, 8.0 / 3}, 1e-12)
	m, v = F.Moments(x, []int{0, 1}, ops.Keepdims())
	checkArray(t, "mean all", m, ops.Shape{1, 1}, []float64{4}, 1e-12)
	checkArray(t, "var all", v, ops.Shape{1, 1}, []float64{(9 + 4 + 1 + 0 + 4 + 16) / 6.0}, 1e-12)
	expectPanic(t, "no axes", func() { F.Call("moments", []ops.Tensor{x}) }, "axes must be given")
}
