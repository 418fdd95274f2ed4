package ops_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// softmax([1, 2, 3]) and its logarithm, computed by hand.
var (
	softmax123    = []float64{0.09003057317038046, 0.24472847105479767, 0.6652409557748219}
	logSoftmax123 = []float64{-2.40760596444438, -1.4076059644443801, -0.4076059644443803}
)

func TestSoftmaxKnownAnswers(t *testing.T) {
	F := eager.F
	x := eager.Array([]float32{1, 2, 3})
	cases := []struct {
		name  string
		got   ops.Tensor
		shape ops.Shape
		want  []float64
	}{
		{"softmax", F.Softmax(x), ops.Shape{3}, softmax123},
		{"log_softmax", F.LogSoftmax(x), ops.Shape{3}, logSoftmax123},
		{"softmax of large values", F.Softmax(eager.Array([]float32{1000, 1000})), ops.Shape{2}, []float64{0.5, 0.5}},
		{"log_softmax of large values", F.LogSoftmax(eager.Array([]float64{1000, 0})), ops.Shape{2}, []float64{0, -1000}},
		{"softmax axis 0", F.Softmax(eager.Array([]float32{1, 2, 3, 4}, 2, 2), ops.Axis(0)), ops.Shape{2, 2},
			[]float64{0.11920292202211755, 0.11920292202211755, 0.8807970779778824, 0.8807970779778824}},
		{"softmax rows", F.Softmax(eager.Array([]float32{1, 2, 3, 3, 2, 1}, 2, 3)), ops.Shape{2, 3},
			append(append([]float64{}, softmax123...), softmax123[2], softmax123[1], softmax123[0])},
		// [0, ln 9] / 2 = [0, ln 3]: softmax [1/4, 3/4].
		{"temperature", F.Softmax(eager.Array([]float64{0, math.Log(9)}), ops.Attr{"temperature", 2.0}), ops.Shape{2}, []float64{0.25, 0.75}},
		{"log temperature", F.LogSoftmax(eager.Array([]float64{0, math.Log(9)}), ops.Attr{"temperature", 2.0}), ops.Shape{2},
			[]float64{math.Log(0.25), math.Log(0.75)}},
		{"SoftmaxOutput", F.SoftmaxOutput(eager.Array([]float32{1, 2, 3}, 1, 3), eager.Array([]float32{2})), ops.Shape{1, 3}, softmax123},
		// Without preserve_shape, MXNet's softmax runs over every dim after the first.
		{"SoftmaxOutput flattens", F.SoftmaxOutput(eager.Array([]float32{0, 0, 0, 0}, 1, 2, 2), eager.Array([]float32{0, 0}, 1, 2)),
			ops.Shape{1, 2, 2}, []float64{0.25, 0.25, 0.25, 0.25}},
		{"SoftmaxOutput preserve_shape", F.SoftmaxOutput(eager.Array([]float32{0, 0, 0, 0}, 1, 2, 2), eager.Array([]float32{0, 0}, 1, 2),
			ops.Attr{"preserve_shape", true}), ops.Shape{1, 2, 2}, []float64{0.5, 0.5, 0.5, 0.5}},
		{"softmax_cross_entropy", F.SoftmaxCrossEntropy(eager.Array([]float32{1, 2, 3, 1, 1, 1}, 2, 3), eager.Array([]float32{2, 0})),
			ops.Shape{1}, []float64{-math.Log(softmax123[2]) + math.Log(3)}},
		{"smooth_l1 sigma 1", F.SmoothL1(eager.Array([]float32{-2, -0.5, 0, 0.5, 2}), 1), ops.Shape{5}, []float64{1.5, 0.125, 0, 0.125, 1.5}},
		{"smooth_l1 sigma 2", F.SmoothL1(eager.Array([]float32{0.1, -1}), 2), ops.Shape{2}, []float64{0.02, 0.875}},
	}
	for _, c := range cases {
		checkArray(t, c.name, c.got, c.shape, c.want, 1e-5)
	}
	if d := F.Softmax(x, ops.WithDType(ops.Float64)).DType(); d != ops.Float64 {
		t.Errorf("softmax with dtype=float64 gives %v", d)
	}
	if d := F.SoftmaxCrossEntropy(eager.Array([]float64{1, 2}, 1, 2), eager.Array([]int32{1})).DType(); d != ops.Float64 {
		t.Errorf("softmax_cross_entropy of float64 data with int32 labels gives %v", d)
	}
}

func TestSoftmaxGradients(t *testing.T) {
	F := eager.F
	// d/dx sum(w * softmax(x)) = y * (w - sum(w*y)).
	w := []float64{1, 0, 0}
	got := kaGrad(t, eager.Array([]float64{1, 2, 3}), w, func(x ops.Tensor) ops.Tensor { return F.Softmax(x) })
	y := softmax123
	checkArray(t, "softmax", eager.Array(got), ops.Shape{3}, []float64{y[0] * (1 - y[0]), -y[1] * y[0], -y[2] * y[0]}, 1e-5)
	// d/dx sum(w * log_softmax(x)) = w - softmax(x) * sum(w).
	got = kaGrad(t, eager.Array([]float64{1, 2, 3}), w, func(x ops.Tensor) ops.Tensor { return F.LogSoftmax(x) })
	checkArray(t, "log_softmax", eager.Array(got), ops.Shape{3}, []float64{1 - y[0], -y[1], -y[2]}, 1e-5)

	// softmax_cross_entropy: (softmax - one_hot) times the head gradient.
	labels := eager.Array([]float32{2, 0})
	got = kaGrad(t, eager.Array([]float64{1, 2, 3, 1, 1, 1}, 2, 3), []float64{2},
		func(x ops.Tensor) ops.Tensor { return F.SoftmaxCrossEntropy(x, labels) })
	checkArray(t, "softmax_cross_entropy", eager.Array(got), ops.Shape{6},
		[]float64{2 * y[0], 2 * y[1], 2 * (y[2] - 1), 2 * (1.0/3 - 1), 2.0 / 3, 2.0 / 3}, 1e-5)

	// smooth_l1: sigma²x inside, sign(x) outside.
	got = kaGrad(t, eager.Array([]float64{-2, 0.5, 0.1}), nil, func(x ops.Tensor) ops.Tensor { return F.SmoothL1(x, 2) })
	checkArray(t, "smooth_l1", eager.Array(got), ops.Shape{3}, []float64{-1, 1, 0.4}, 1e-5)
}

// TestSoftmaxOutputBackward checks MXNet's gradient exactly: softmax minus
// the one-hot label, scaled and normalised, whatever the head gradient.
func TestSoftmaxOutputBackward(t *testing.T) {
	F := eager.F
	y := softmax123
	data := []float64{1, 2, 3, 1, 1, 1}
	labels := eager.Array([]float64{2, 0})
	third := 1.0 / 3
	plain := []float64{y[0], y[1], y[2] - 1, third - 1, third, third}
	scaled := func(s float64, v []float64) []float64 {
		out := make([]float64, len(v))
		for i := range v {
			out[i] = s * v[i]
		}
		return out
	}
	head := []float64{5, -1, 7, 2, 2, 3} // ignored unless out_grad
	cases := []struct {
		name  string
		attrs []ops.Attr
		want  []float64
	}{
		{"default", nil, plain},
		{"grad_scale", []ops.Attr{{"grad_scale", 3.0}}, scaled(3, plain)},
		{"batch", []ops.Attr{{"grad_scale", 3.0}, {"normalization", "batch"}}, scaled(1.5, plain)},
		{"ignore", []ops.Attr{{"use_ignore", true}, {"ignore_label", 0}, {"normalization", "valid"}},
			[]float64{y[0], y[1], y[2] - 1, 0, 0, 0}},
		{"valid without ignore counts every label", []ops.Attr{{"normalization", "valid"}}, scaled(0.5, plain)},
		{"out_grad", []ops.Attr{{"out_grad", true}},
			[]float64{5 * y[0], -y[1], 7 * (y[2] - 1), 2 * (third - 1), 2 * third, 3 * third}},
		{"smooth_alpha", []ops.Attr{{"smooth_alpha", 0.3}},
			[]float64{y[0] - 0.15, y[1] - 0.15, y[2] - 0.7, third - 0.7, third - 0.15, third - 0.15}},
	}
	for _, c := range cases {
		got := kaGrad(t, eager.Array(data, 2, 3), head,
			func(x ops.Tensor) ops.Tensor { return F.SoftmaxOutput(x, labels, c.attrs...) })
		checkArray(t, "SoftmaxOutput "+c.name, eager.Array(got, 2, 3), ops.Shape{2, 3}, c.want, 1e-5)
	}

	// multi_output: softmax along axis 1 of (1, 2, 2), one label per position;
	// MXNet divides by the number of positions.
	x := []float64{0, 0, 0, math.Log(3)} // position 0: logits (0, 0); position 1: (0, ln 3)
	ml := eager.Array([]float64{1, 0}, 1, 2)
	got := kaGrad(t, eager.Array(x, 1, 2, 2), nil,
		func(x ops.Tensor) ops.Tensor { return F.SoftmaxOutput(x, ml, ops.Attr{"multi_output", true}) })
	checkArray(t, "SoftmaxOutput multi_output", eager.Array(got), ops.Shape{4}, []float64{0.25, -0.375, -0.25, 0.375}, 1e-5)

	// A label of the data's shape holds class probabilities.
	probs := eager.Array([]float64{0.25, 0.75}, 1, 2)
	got = kaGrad(t, eager.Array([]float64{0, 0}, 1, 2), nil,
		func(x ops.Tensor) ops.Tensor { return F.SoftmaxOutput(x, probs) })
	checkArray(t, "SoftmaxOutput probabilities", eager.Array(got), ops.Shape{2}, []float64{0.25, -0.25}, 1e-5)

	// The label gets no gradient.
	lv := eager.Array([]float64{2, 0})
	lv.AttachGrad()
	xv := eager.Array(data, 2, 3)
	xv.AttachGrad()
	var out *eager.NDArray
	eager.Record(func() { out = F.SoftmaxOutput(xv, lv).(*eager.NDArray) })
	if err := out.Backward(); err != nil {
		t.Fatal(err)
	}
	checkArray(t, "SoftmaxOutput label gradient", lv.Grad(), ops.Shape{2}, []float64{0, 0}, 1e-5)
}

func TestSoftmaxErrors(t *testing.T) {
	F := eager.F
	x := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	wantErr(t, "use_length", panicErr(func() { F.Softmax(x, ops.Attr{"use_length", true}) }), "softmax", "use_length=True", "not supported")
	wantErr(t, "axis", panicErr(func() { F.Softmax(x, ops.Axis(2)) }), "softmax", "axis 2", "2x3")
	wantErr(t, "log axis", panicErr(func() { F.LogSoftmax(x, ops.Axis(-3)) }), "log_softmax", "axis -3", "2x3")
	wantErr(t, "int data", panicErr(func() { F.Softmax(eager.Array([]int32{1, 2})) }), "softmax", "int32")
	wantErr(t, "SoftmaxOutput label", panicErr(func() { F.SoftmaxOutput(x, eager.Array([]float32{0, 1, 2})) }),
		"SoftmaxOutput", "label 3", "data 2x3")
	wantErr(t, "SoftmaxOutput multi label", panicErr(func() {
		F.SoftmaxOutput(eager.Zeros(2, 3, 4), eager.Zeros(2, 5), ops.Attr{"multi_output", true})
	}), "SoftmaxOutput", "label 2x5", "data 2x3x4")
	wantErr(t, "cross entropy label", panicErr(func() { F.SoftmaxCrossEntropy(x, eager.Array([]float32{0, 1, 2})) }),
		"softmax_cross_entropy", "label 3", "data 2x3")
	wantErr(t, "cross entropy rank", panicErr(func() { F.SoftmaxCrossEntropy(eager.Zeros(2, 3, 4), eager.Zeros(2)) }),
		"softmax_cross_entropy", "2x3x4", "2-D")
	wantErr(t, "cross entropy class", panicErr(func() { F.SoftmaxCrossEntropy(x, eager.Array([]float32{3, 0})) }),
		"softmax_cross_entropy", "label 3", "out of range for 3 classes")

	// A label out of range is refused in the backward.
	xv := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	xv.AttachGrad()
	var out *eager.NDArray
	eager.Record(func() { out = F.SoftmaxOutput(xv, eager.Array([]float32{-1, 0})).(*eager.NDArray) })
	wantErr(t, "SoftmaxOutput class", out.Backward(), "_backward_SoftmaxOutput", "out of range for 3 classes", "use_ignore")
}

func ExampleF_Softmax() {
	x := eager.Array([]float32{1, 2, 3, 1, 1, 1}, 2, 3)
	fmt.Println(eager.F.Softmax(x))
	// Output:
	// [[0.09003057 0.24472848 0.66524094]
	//  [0.33333334 0.33333334 0.33333334]]
	// <NDArray 2x3 @cpu(0)>
}
