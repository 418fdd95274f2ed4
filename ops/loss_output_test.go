package ops_test

import (
	"math"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

func TestRegressionOutputs(t *testing.T) {
	F := eager.F
	label := eager.Array([]float64{0, 4, 3})
	data := func() *eager.NDArray { return eager.Array([]float64{1, 2, 3}, 3, 1) }
	head := []float64{7, 7, 7} // not read

	y := F.LinearRegressionOutput(data(), label)
	checkArray(t, "linear forward", y, ops.Shape{3, 1}, []float64{1, 2, 3}, 0)
	got := kaGrad(t, data(), head, func(x ops.Tensor) ops.Tensor { return F.LinearRegressionOutput(x, label) })
	checkArray(t, "linear gradient", eager.Array(got), ops.Shape{3}, []float64{1, -2, 0}, 1e-12)

	got = kaGrad(t, data(), head, func(x ops.Tensor) ops.Tensor {
		return F.MAERegressionOutput(x, label, ops.Attr{"grad_scale", 2})
	})
	checkArray(t, "mae gradient", eager.Array(got), ops.Shape{3}, []float64{2, -2, -2}, 1e-12)

	s := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	checkArray(t, "logistic forward", F.LogisticRegressionOutput(data(), label), ops.Shape{3, 1}, []float64{s(1), s(2), s(3)}, 1e-12)
	got = kaGrad(t, data(), head, func(x ops.Tensor) ops.Tensor { return F.LogisticRegressionOutput(x, label) })
	checkArray(t, "logistic gradient", eager.Array(got), ops.Shape{3}, []float64{s(1), s(2) - 4, s(3) - 3}, 1e-12)

	// m, the values per sample, divides the gradient.
	x2 := eager.Array([]float64{1, 2, 3, 4}, 2, 2)
	got = kaGrad(t, x2, nil, func(x ops.Tensor) ops.Tensor {
		return F.LinearRegressionOutput(x, eager.Array([]float64{0, 0, 0, 0}, 2, 2))
	})
	checkArray(t, "per-sample scale", eager.Array(got), ops.Shape{4}, []float64{0.5, 1, 1.5, 2}, 1e-12)

	op := ops.MustLookup("LinearRegressionOutput")
	_, _, err := op.InferShape(op.DefaultAttrs(), []ops.Shape{{3, 2}, {2, 3}})
	wantErr(t, "label shape", err, "does not match")
}

func TestMakeLoss(t *testing.T) {
	F := eager.F
	x := func() *eager.NDArray { return eager.Array([]float64{-1, 0.5, 2, 3}, 2, 2) }
	checkArray(t, "forward", F.MakeLoss(x()), ops.Shape{2, 2}, []float64{-1, 0.5, 2, 3}, 0)
	cases := []struct {
		attrs []ops.Attr
		want  float64
	}{
		{nil, 1},
		{[]ops.Attr{{"grad_scale", 3}, {"normalization", "batch"}}, 1.5},
		{[]ops.Attr{{"normalization", "valid"}}, 1.0 / 3},
		{[]ops.Attr{{"normalization", "valid"}, {"valid_thresh", 10}}, 1},
	}
	for _, c := range cases {
		got := kaGrad(t, x(), []float64{5, 5, 5, 5}, func(x ops.Tensor) ops.Tensor { return F.MakeLoss(x, c.attrs...) })
		checkArray(t, "gradient", eager.Array(got), ops.Shape{4}, []float64{c.want, c.want, c.want, c.want}, 1e-12)
	}
	if _, ok := ops.Lookup("make_loss"); !ok {
		t.Error("no make_loss")
	}
}
