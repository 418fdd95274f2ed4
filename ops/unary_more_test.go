package ops_test

import (
	"math"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

func TestMoreUnaryValues(t *testing.T) {
	F := eager.F
	checkArray(t, "rint", F.Rint(eager.Array([]float64{2.5, -2.5, 1.4, 1.6, -0.2})), ops.Shape{5}, []float64{2, -3, 1, 2, -0}, 1e-12)
	checkArray(t, "log10", F.Log10(eager.Array([]float32{1, 10, 1000})), ops.Shape{3}, []float64{0, 1, 3}, 1e-6)
	checkArray(t, "rcbrt", F.Rcbrt(eager.Array([]float64{8, 1})), ops.Shape{2}, []float64{0.5, 1}, 1e-12)
	checkArray(t, "radians", F.Radians(eager.Array([]float64{180})), ops.Shape{1}, []float64{math.Pi}, 1e-12)
	checkArray(t, "degrees", F.Degrees(eager.Array([]float64{math.Pi / 2})), ops.Shape{1}, []float64{90}, 1e-12)
	checkArray(t, "arcsinh", F.Arcsinh(eager.Array([]float64{1})), ops.Shape{1}, []float64{math.Asinh(1)}, 1e-12)
	checkArray(t, "arccosh", F.Arccosh(eager.Array([]float64{2})), ops.Shape{1}, []float64{math.Acosh(2)}, 1e-12)
	checkArray(t, "arctanh", F.Arctanh(eager.Array([]float64{0.5})), ops.Shape{1}, []float64{math.Atanh(0.5)}, 1e-12)
	checkArray(t, "hard_sigmoid", F.HardSigmoid(eager.Array([]float32{-5, 0, 1, 5})), ops.Shape{4}, []float64{0, 0.5, 0.7, 1}, 1e-6)
	checkArray(t, "hard_sigmoid alpha", F.HardSigmoid(eager.Array([]float32{1}), ops.Attr{"alpha", 0.25}, ops.Attr{"beta", 0}), ops.Shape{1}, []float64{0.25}, 1e-6)
	got := kaGrad(t, eager.Array([]float64{-5, 0, 1, 5}), nil, func(x ops.Tensor) ops.Tensor { return F.HardSigmoid(x) })
	checkArray(t, "hard_sigmoid gradient", eager.Array(got), ops.Shape{4}, []float64{0, 0.2, 0.2, 0}, 1e-12)
}

// The examples of MXNet's softmin documentation.
func TestSoftmin(t *testing.T) {
	F := eager.F
	x := eager.Array([]float32{1, 2, 3, 3, 2, 1}).Reshape(2, 3)
	checkArray(t, "softmin axis 0", F.Softmin(x, ops.Axis(0)), ops.Shape{2, 3},
		[]float64{0.88079703, 0.5, 0.11920292, 0.11920292, 0.5, 0.88079703}, 1e-6)
	checkArray(t, "softmin axis 1", F.Softmin(x), ops.Shape{2, 3},
		[]float64{0.66524094, 0.24472848, 0.09003057, 0.09003057, 0.24472848, 0.66524094}, 1e-6)
	checkArray(t, "softmin temperature", F.Softmin(x, ops.Attr{"temperature", 2}), ops.Shape{2, 3},
		ndValues(F.Softmax(F.MulScalar(x, -0.5))), 1e-6)
}

func ndValues(x ops.Tensor) []float64 { return nd(x).Float64s() }
