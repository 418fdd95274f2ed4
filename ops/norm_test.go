package ops_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// bnInputs is a 4x2 batch: channel 0 holds 1, 2, 3, 4 (mean 2.5, variance
// 1.25), channel 1 holds 2 four times (mean 2, variance 0).
func bnInputs() (x, gamma, beta, mm, mv *eager.NDArray) {
	x = eager.Array([]float32{1, 2, 2, 2, 3, 2, 4, 2}, 4, 2)
	gamma = eager.Array([]float32{2, 3})
	beta = eager.Array([]float32{0.5, -1})
	mm = eager.Array([]float32{1, 3})
	mv = eager.Array([]float32{4, 0.25})
	return
}

func TestBatchNormTraining(t *testing.T) {
	x, gamma, beta, mm, mv := bnInputs()
	var out ops.Tensor
	eager.TrainMode(func() {
		out = eager.F.BatchNorm(x, gamma, beta, mm, mv, ops.Attr{Name: "fix_gamma", Value: false})
	})
	s0 := 1 / math.Sqrt(1.25+1e-3)
	want := make([]float64, 8)
	for i, v := range []float64{1, 2, 3, 4} {
		want[2*i] = 2*(v-2.5)*s0 + 0.5
		want[2*i+1] = -1 // (2-2)*… + beta
	}
	checkArray(t, "out", out, ops.Shape{4, 2}, want, 1e-5)
	// moving = moving*0.9 + batch*0.1, in place.
	checkArray(t, "moving_mean", mm, ops.Shape{2}, []float64{0.9 + 0.25, 2.7 + 0.2}, 1e-6)
	checkArray(t, "moving_var", mv, ops.Shape{2}, []float64{3.6 + 0.125, 0.225}, 1e-6)

	// fix_gamma (the default) treats gamma as 1.
	x, gamma, beta, mm, mv = bnInputs()
	eager.TrainMode(func() { out = eager.F.BatchNorm(x, gamma, beta, mm, mv) })
	checkArray(t, "fix_gamma", out, ops.Shape{4, 2}, []float64{-1.5*s0 + 0.5, -1, -0.5*s0 + 0.5, -1, 0.5*s0 + 0.5, -1, 1.5*s0 + 0.5, -1}, 1e-5)
}

func TestBatchNormInference(t *testing.T) {
	x, gamma, beta, mm, mv := bnInputs()
	var out ops.Tensor
	eager.PredictMode(func() {
		out = eager.F.BatchNorm(x, gamma, beta, mm, mv, ops.Attr{Name: "fix_gamma", Value: false}, ops.Attr{Name: "eps", Value: 0.0})
	})
	// (x - moving_mean) / sqrt(moving_var) * gamma + beta
	want := []float64{2*0/2 + 0.5, 3*(2-3)/0.5 - 1, 2*(2-1)/2 + 0.5, -7, 2*(3-1)/2 + 0.5, -7, 2*(4-1)/2 + 0.5, -7}
	checkArray(t, "out", out, ops.Shape{4, 2}, want, 1e-6)
	checkArray(t, "moving_mean unchanged", mm, ops.Shape{2}, []float64{1, 3}, 0)
	checkArray(t, "moving_var unchanged", mv, ops.Shape{2}, []float64{4, 0.25}, 0)

	// use_global_stats uses (and keeps) the moving statistics when training too.
	var again ops.Tensor
	eager.TrainMode(func() {
		again = eager.F.BatchNorm(x, gamma, beta, mm, mv, ops.Attr{Name: "fix_gamma", Value: false},
			ops.Attr{Name: "eps", Value: 0.0}, ops.Attr{Name: "use_global_stats", Value: true})
	})
	checkArray(t, "use_global_stats", again, ops.Shape{4, 2}, want, 1e-6)
	checkArray(t, "use_global_stats moving_mean", mm, ops.Shape{2}, []float64{1, 3}, 0)
}

func TestBatchNormOutputMeanVarAndAxis(t *testing.T) {
	// Channels on the last axis of a 2x1x2 array.
	x := eager.Array([]float32{1, 10, 3, 30}, 2, 1, 2)
	ones, zeros := eager.Array([]float32{1, 1}), eager.Array([]float32{0, 0})
	mm, mv := eager.Array([]float32{0, 0}), eager.Array([]float32{1, 1})
	op := ops.MustLookup("BatchNorm")
	a := parse(t, op, map[string]string{"axis": "-1", "output_mean_var": "True", "momentum": "0.5"})
	var outs []ops.Tensor
	eager.TrainMode(func() { outs = eager.F.Invoke(op, a, x, ones, zeros, mm, mv) })
	if len(outs) != 3 {
		t.Fatalf("output_mean_var: %d visible outputs, want 3", len(outs))
	}
	checkArray(t, "mean", outs[1], ops.Shape{2}, []float64{2, 20}, 1e-6)
	checkArray(t, "var", outs[2], ops.Shape{2}, []float64{1, 100}, 1e-6)
	checkArray(t, "moving_mean", mm, ops.Shape{2}, []float64{1, 10}, 1e-6)
	checkArray(t, "moving_var", mv, ops.Shape{2}, []float64{1, 50.5}, 1e-6)
	if n := len(eager.F.Invoke(op, parse(t, op, map[string]string{"axis": "-1"}), x, ones, zeros, mm, mv)); n != 1 {
		t.Errorf("default: %d visible outputs, want 1", n)
	}
}

func TestBatchNormGradientTraining(t *testing.T) {
	// With batch statistics, the data gradient of sum(out) is zero (the
	// output's per-channel sum is fixed at n*beta); beta's is n.
	x, gamma, beta, mm, mv := bnInputs()
	for _, v := range []*eager.NDArray{x, gamma, beta} {
		v.AttachGrad()
	}
	var y *eager.NDArray
	eager.Record(func() {
		y = nd(eager.F.Sum(eager.F.BatchNorm(x, gamma, beta, mm, mv, ops.Attr{Name: "fix_gamma", Value: false})))
	})
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	checkArray(t, "dx", x.Grad(), ops.Shape{4, 2}, make([]float64, 8), 1e-5)
	checkArray(t, "dbeta", beta.Grad(), ops.Shape{2}, []float64{4, 4}, 1e-6)
	checkArray(t, "dgamma", gamma.Grad(), ops.Shape{2}, []float64{0, 0}, 1e-5)

	// fix_gamma gives gamma no gradient.
	x, gamma, beta, mm, mv = bnInputs()
	gamma.AttachGrad()
	x.AttachGrad()
	eager.Record(func() {
		y = nd(eager.F.Sum(eager.F.Mul(eager.F.BatchNorm(x, gamma, beta, mm, mv), x)))
	})
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	checkArray(t, "fix_gamma dgamma", gamma.Grad(), ops.Shape{2}, []float64{0, 0}, 0)
}

// TestBatchNormGradientNumeric checks the gradients of BatchNorm with the
// batch's statistics (_backward_BatchNorm) against central differences of
// the training forward, in float64, for a loss that weighs every output
// differently, with and without fix_gamma, over axis 1 and the last one.
func TestBatchNormGradientNumeric(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	randArray := func(shape ...int) *eager.NDArray {
		n := 1
		for _, d := range shape {
			n *= d
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = r.NormFloat64() + 0.5
		}
		return eager.Array(v, shape...)
	}
	for _, tc := range []struct {
		shape    []int
		c        int
		fixGamma bool
		axis     int
	}{{[]int{3, 2, 2, 3}, 2, false, 1}, {[]int{3, 2, 2, 3}, 2, true, 1}, {[]int{4, 5, 3}, 3, false, -1}} {
		x, w := randArray(tc.shape...), randArray(tc.shape...)
		gamma, beta, mm, mv := randArray(tc.c), randArray(tc.c), randArray(tc.c), eager.Array([]float64{1, 1, 1}[:tc.c])
		attrs := []ops.Attr{{Name: "fix_gamma", Value: tc.fixGamma}, {Name: "axis", Value: tc.axis}}
		loss := func() float64 {
			var y *eager.NDArray
			eager.TrainMode(func() {
				y = nd(eager.F.Sum(eager.F.Mul(eager.F.BatchNorm(x, gamma, beta, mm, mv, attrs...), w)))
			})
			return y.Float64s()[0]
		}
		for _, v := range []*eager.NDArray{x, gamma, beta} {
			v.AttachGrad()
		}
		var y *eager.NDArray
		eager.Record(func() {
			y = nd(eager.F.Sum(eager.F.Mul(eager.F.BatchNorm(x, gamma, beta, mm, mv, attrs...), w)))
		})
		if err := y.Backward(); err != nil {
			t.Fatal(err)
		}
		for name, p := range map[string]*eager.NDArray{"data": x, "gamma": gamma, "beta": beta} {
			vals, grad := p.Data().([]float64), p.Grad().Float64s()
			for i := range vals {
				want := 0.0
				if name != "gamma" || !tc.fixGamma {
					const h = 1e-5
					old := vals[i]
					vals[i] = old + h
					up := loss()
					vals[i] = old - h
					down := loss()
					vals[i] = old
					want = (up - down) / (2 * h)
				}
				if math.Abs(grad[i]-want) > 1e-6*(1+math.Abs(want)) {
					t.Fatalf("%+v: d%s[%d] = %v, want %v", tc, name, i, grad[i], want)
				}
			}
		}
	}
}

func TestBatchNormFillsParameterShapes(t *testing.T) {
	op := ops.MustLookup("BatchNorm")
	out, filled, err := op.InferShape(parse(t, op, nil), []ops.Shape{{8, 6, 5, 5}, {}, {0}, {}, {}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 5; i++ {
		if !filled[i].Equal(ops.Shape{6}) {
			t.Errorf("input %d filled as %v, want (6,)", i, filled[i])
		}
	}
	if !out[0].Equal(ops.Shape{8, 6, 5, 5}) || !out[1].Equal(ops.Shape{6}) {
		t.Errorf("outputs %v", out)
	}
	// The channel count may come from a parameter when data's is unknown.
	_, filled, err = op.InferShape(parse(t, op, nil), []ops.Shape{{8, 0, 5}, {3}, {}, {}, {}})
	if err != nil || !filled[0].Equal(ops.Shape{8, 3, 5}) || !filled[4].Equal(ops.Shape{3}) {
		t.Errorf("unknown channels: filled %v, err %v", filled, err)
	}

	ln := ops.MustLookup("LayerNorm")
	out, filled, err = ln.InferShape(parse(t, ln, nil), []ops.Shape{{2, 7, 4}, {}, {}})
	if err != nil || !filled[1].Equal(ops.Shape{4}) || !filled[2].Equal(ops.Shape{4}) || !out[1].Equal(ops.Shape{2, 7, 1}) {
		t.Errorf("LayerNorm: out %v filled %v err %v", out, filled, err)
	}
}

func TestNormErrors(t *testing.T) {
	F := eager.F
	x := eager.Zeros(4, 3, 2)
	c3, c2 := eager.Zeros(3), eager.Ones(2)
	err := panicErr(func() { F.BatchNorm(x, c2, c3, c3, c3) })
	wantErr(t, "BatchNorm gamma", err, "BatchNorm", "gamma 2", "4x3x2", "3 channels")
	err = panicErr(func() { F.BatchNorm(x, c3, c3, c3, c3, ops.Axis(3)) })
	wantErr(t, "BatchNorm axis", err, "BatchNorm", "4x3x2", "axis=3")
	err = panicErr(func() { F.LayerNorm(x, c3, c3) })
	wantErr(t, "LayerNorm gamma", err, "LayerNorm", "gamma 3", "4x3x2", "2 channels")
}

func TestLayerNorm(t *testing.T) {
	x := eager.Array([]float32{1, 2, 3, 2, 4, 6}, 2, 3)
	gamma := eager.Array([]float32{1, 2, 1})
	beta := eager.Array([]float32{0, 0, 1})
	op := ops.MustLookup("LayerNorm")
	outs := eager.F.Invoke(op, parse(t, op, map[string]string{"output_mean_var": "True", "eps": "0"}), x, gamma, beta)
	s1, s2 := math.Sqrt(2.0/3), math.Sqrt(8.0/3)
	checkArray(t, "out", outs[0], ops.Shape{2, 3}, []float64{-1 / s1, 0, 1/s1 + 1, -2 / s2, 0, 2/s2 + 1}, 1e-5)
	checkArray(t, "mean", outs[1], ops.Shape{2, 1}, []float64{2, 4}, 1e-6)
	checkArray(t, "std", outs[2], ops.Shape{2, 1}, []float64{s1, s2}, 1e-6)

	// Along axis 0: the columns are normalised.
	out := eager.F.LayerNorm(x, eager.Ones(2), eager.Zeros(2), ops.Axis(0), ops.Attr{Name: "eps", Value: 0.0})
	checkArray(t, "axis 0", out, ops.Shape{2, 3}, []float64{-1, -1, -1, 1, 1, 1}, 1e-5)
}
