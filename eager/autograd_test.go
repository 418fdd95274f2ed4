package eager

import (
	"math"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/ops"
)

func approxEqual(t *testing.T, what string, got []float64, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol*(1+math.Abs(want[i])) {
			t.Fatalf("%s[%d] = %v, want %v (all: %v)", what, i, got[i], want[i], got)
		}
	}
}

func recorded(fn func() ops.Tensor) *NDArray {
	var y ops.Tensor
	Record(func() { y = fn() })
	return y.(*NDArray)
}

func TestBackwardWritesGradient(t *testing.T) {
	x := Array([]float64{1, 2, 3})
	x.AttachGrad()
	y := recorded(func() ops.Tensor { return F.Sum(F.Mul(x, x)) })
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "d(sum x²)/dx", x.Grad().Float64s(), []float64{2, 4, 6}, 1e-12)
	// GradWrite overwrites on the next pass.
	y = recorded(func() ops.Tensor { return F.Sum(F.MulScalar(x, 3)) })
	y.Backward()
	approxEqual(t, "after a second pass", x.Grad().Float64s(), []float64{3, 3, 3}, 1e-12)
}

func TestGradAddAccumulatesAndNullSkips(t *testing.T) {
	x := Array([]float64{1, 2})
	x.AttachGrad(GradAdd)
	n := Array([]float64{5, 5})
	n.AttachGrad(GradNull)
	for i := 0; i < 3; i++ {
		y := recorded(func() ops.Tensor { return F.Sum(F.Mul(x, n)) })
		if err := y.Backward(); err != nil {
			t.Fatal(err)
		}
	}
	approxEqual(t, "accumulated", x.Grad().Float64s(), []float64{15, 15}, 1e-12)
	approxEqual(t, "null request", n.Grad().Float64s(), []float64{0, 0}, 0)
}

func TestHeadGradientAndSharedInputs(t *testing.T) {
	x := Array([]float32{1, 2})
	x.AttachGrad()
	// y uses x twice: the gradients of both uses add up.
	y := recorded(func() ops.Tensor { return F.Add(F.Mul(x, x), x) })
	if err := y.Backward(Array([]float32{1, 10})); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "(2x+1)*head", x.Grad().Float64s(), []float64{3, 50}, 1e-6)
}

func TestBroadcastGradientSumsBack(t *testing.T) {
	a := Array([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	b := Array([]float64{10, 20, 30})
	a.AttachGrad()
	b.AttachGrad()
	y := recorded(func() ops.Tensor { return F.Sum(F.Mul(a, b)) })
	y.Backward()
	approxEqual(t, "d/da", a.Grad().Float64s(), []float64{10, 20, 30, 10, 20, 30}, 1e-12)
	approxEqual(t, "d/db", b.Grad().Float64s(), []float64{5, 7, 9}, 1e-12)
}

func TestReleasedGraphIsAnError(t *testing.T) {
	x := Array([]float32{1})
	x.AttachGrad()
	y := recorded(func() ops.Tensor { return F.Exp(x) })
	if err := Backward([]*NDArray{y}, nil, true); err != nil {
		t.Fatal(err)
	}
	if err := y.Backward(); err != nil {
		t.Fatalf("a retained graph runs again: %v", err)
	}
	err := y.Backward()
	if err == nil || !strings.Contains(err.Error(), "retainGraph") {
		t.Errorf("third pass on a released graph: got %v", err)
	}
}

func TestBackwardErrors(t *testing.T) {
	x := Array([]float32{1, 2})
	y := F.Exp(x).(*NDArray) // not recorded, x not a variable
	err := y.Backward()
	if err == nil || !strings.Contains(err.Error(), "does not depend on any variable") {
		t.Errorf("backward of an unrecorded array: %v", err)
	}
	x.AttachGrad()
	y = recorded(func() ops.Tensor { return F.Exp(x) })
	err = y.Backward(Array([]float32{1, 2, 3}))
	if err == nil || !strings.Contains(err.Error(), "head gradient 0 has shape 3, the head has 2") {
		t.Errorf("head gradient of the wrong shape: %v", err)
	}
	_, err = Grad([]*NDArray{y}, []*NDArray{Array([]float32{1})}, nil, false, false)
	if err == nil || !strings.Contains(err.Error(), "AttachGrad") {
		t.Errorf("Grad for a non-variable: %v", err)
	}
}

func TestPauseStopsRecording(t *testing.T) {
	x := Array([]float32{1, 2})
	x.AttachGrad()
	var y *NDArray
	Record(func() {
		if !IsRecording() || !IsTraining() {
			t.Error("Record should turn recording and training on")
		}
		Pause(func() {
			if IsRecording() || IsTraining() {
				t.Error("Pause should turn recording and training off")
			}
			y = F.Exp(x).(*NDArray)
		})
	})
	if IsRecording() {
		t.Error("recording left on after Record")
	}
	if y.requiresGrad() {
		t.Error("an op run under Pause was recorded")
	}
	PredictMode(func() {
		if IsTraining() {
			t.Error("PredictMode left training on")
		}
		TrainMode(func() {
			if !IsTraining() {
				t.Error("TrainMode did not turn training on")
			}
		})
	})
}

// Second derivatives come from gradient rules written with F: recording
// the first gradient makes it differentiable again.
func TestSecondDerivatives(t *testing.T) {
	xs := []float64{-1.5, -0.3, 0.4, 2}
	cases := []struct {
		name   string
		f      func(x ops.Tensor) ops.Tensor
		first  func(x float64) float64
		second func(x float64) float64
	}{
		{"tanh", F.Tanh,
			func(x float64) float64 { return 1 - math.Pow(math.Tanh(x), 2) },
			func(x float64) float64 { t := math.Tanh(x); return -2 * t * (1 - t*t) }},
		{"sigmoid", F.Sigmoid,
			func(x float64) float64 { s := 1 / (1 + math.Exp(-x)); return s * (1 - s) },
			func(x float64) float64 { s := 1 / (1 + math.Exp(-x)); return s * (1 - s) * (1 - 2*s) }},
		{"x*x", func(x ops.Tensor) ops.Tensor { return F.Mul(x, x) },
			func(x float64) float64 { return 2 * x },
			func(x float64) float64 { return 2 }},
		{"x*x*x", func(x ops.Tensor) ops.Tensor { return F.Mul(F.Mul(x, x), x) },
			func(x float64) float64 { return 3 * x * x },
			func(x float64) float64 { return 6 * x }},
	}
	for _, c := range cases {
		x := Array(xs)
		x.AttachGrad()
		var dx *NDArray
		Record(func() {
			y := c.f(x).(*NDArray)
			g, err := Grad([]*NDArray{y}, []*NDArray{x}, nil, true, true)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			dx = g[0]
		})
		want1, want2 := make([]float64, len(xs)), make([]float64, len(xs))
		for i, v := range xs {
			want1[i], want2[i] = c.first(v), c.second(v)
		}
		approxEqual(t, c.name+"'", dx.Float64s(), want1, 1e-9)
		if err := dx.Backward(); err != nil {
			t.Fatalf("%s: second backward: %v", c.name, err)
		}
		approxEqual(t, c.name+"''", x.Grad().Float64s(), want2, 1e-9)
	}
}

func TestDetachCutsTheTape(t *testing.T) {
	x := Array([]float32{2})
	x.AttachGrad()
	y := recorded(func() ops.Tensor { return F.Mul(F.Mul(x, x).(*NDArray).Detach(), x) })
	y.Backward()
	approxEqual(t, "detached factor is a constant", x.Grad().Float64s(), []float64{4}, 1e-6)
}

// The second derivative through dot: for y = sum((A·x)²), d²y/dx² = 2·AᵀA,
// so the gradient of sum(dy/dx) is 2·AᵀA·1.
func TestSecondDerivativeThroughDot(t *testing.T) {
	a := Array([]float64{1, 2, 3, 4, 5, 6}, 3, 2)
	x := Array([]float64{0.5, -1}, 2, 1)
	x.AttachGrad()
	var dx *NDArray
	Record(func() {
		y := F.Sum(F.Square(F.Dot(a, x))).(*NDArray)
		g, err := Grad([]*NDArray{y}, []*NDArray{x}, nil, true, true)
		if err != nil {
			t.Fatal(err)
		}
		dx = g[0]
	})
	// dy/dx = 2·Aᵀ·A·x; AᵀA = [[35 44] [44 56]].
	approxEqual(t, "dy/dx", dx.Float64s(), []float64{2 * (35*0.5 - 44), 2 * (44*0.5 - 56)}, 1e-12)
	if err := recorded(func() ops.Tensor { return F.Sum(dx) }).Backward(); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "d(sum dy/dx)/dx", x.Grad().Float64s(), []float64{2 * (35 + 44), 2 * (44 + 56)}, 1e-12)
}

// doubler is a Call that computes 2x: its backward doubles the output
// gradient, and it counts its backwards and releases.
type doubler struct{ backwards, releases int }

func (d *doubler) Backward(outGrads []*NDArray) ([]*NDArray, error) {
	d.backwards++
	return []*NDArray{F.MulScalar(outGrads[0], 2).(*NDArray)}, nil
}

func (d *doubler) Release() { d.releases++ }

// A Call recorded with RecordCall is one node of the tape: Backward runs
// its backward with the output's gradient, and the tape releases it once,
// when a Backward without retainGraph lets go of it. A higher-order
// gradient through it is refused.
func TestRecordCall(t *testing.T) {
	for _, c := range []struct {
		name                string
		retain              bool
		backwards, releases int
	}{
		{"release", false, 1, 1},
		{"retain", true, 1, 0},
	} {
		x := Array([]float32{1, 2}, 2)
		x.AttachGrad()
		d := &doubler{}
		var y *NDArray
		Record(func() {
			in := []*NDArray{x}
			if !Taped(in) {
				t.Fatal("Taped: a variable inside Record is not taped")
			}
			out := []*NDArray{F.MulScalar(x, 2).(*NDArray)}
			Pause(func() { out[0] = out[0].Copy() }) // computed off the tape, as a compiled graph is
			RecordCall(d, in, out)
			y = F.Sum(F.Square(out[0])).(*NDArray)
		})
		if err := Backward([]*NDArray{y}, nil, c.retain); err != nil {
			t.Fatal(err)
		}
		if got := x.Grad().Float64s(); got[0] != 8 || got[1] != 16 { // d/dx (2x)^2 = 8x
			t.Errorf("%s: gradient %v, want [8 16]", c.name, got)
		}
		if d.backwards != c.backwards || d.releases != c.releases {
			t.Errorf("%s: %d backwards and %d releases, want %d and %d", c.name, d.backwards, d.releases, c.backwards, c.releases)
		}
		if c.retain {
			if _, err := Grad([]*NDArray{y}, []*NDArray{x}, nil, true, true); err == nil || !strings.Contains(err.Error(), "higher-order") {
				t.Errorf("a higher-order gradient through a Call: %v", err)
			}
		}
	}
	if Taped([]*NDArray{Ones(2)}) {
		t.Error("Taped outside Record")
	}
}

// A gradient hook runs as soon as its variable's gradient is final: for
// y = sum(w2 * (w1 * x)) * w1 (w1 read twice), w2 is done first, and w1
// only after both of its uses, with the full gradient in its buffer.
func TestGradHookRunsWhenGradientIsFinal(t *testing.T) {
	x := Array([]float32{1, 2}, 2)
	w1 := Array([]float32{3, 4}, 2)
	w2 := Array([]float32{5, 6}, 2)
	w1.AttachGrad()
	w2.AttachGrad()
	var order []string
	var w1At, w2At []float64
	w2.SetGradHook(func(v *NDArray) {
		order = append(order, "w2")
		w2At = v.Grad().Float64s()
		w1At = w1.Grad().Float64s() // not written yet
	})
	w1.SetGradHook(func(v *NDArray) { order = append(order, "w1") })
	var y *NDArray
	Record(func() {
		h := F.Mul(w1, x)
		y = F.Sum(F.Mul(F.Mul(w2, h), w1)).(*NDArray)
	})
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	if len(order) != 2 || order[0] != "w2" || order[1] != "w1" {
		t.Fatalf("hooks ran in order %v, want [w2 w1]", order)
	}
	// dy/dw2 = w1² x; dy/dw1 = 2 w1 w2 x.
	approxEqual(t, "w2 grad at its hook", w2At, []float64{9, 32}, 0)
	approxEqual(t, "w1 grad at w2's hook", w1At, []float64{0, 0}, 0)
	approxEqual(t, "w1 grad", w1.Grad().Float64s(), []float64{30, 96}, 0)
	w2.SetGradHook(nil)
	w1.SetGradHook(nil)
	order = nil
	Record(func() { y = F.Sum(F.Mul(w1, w2)).(*NDArray) })
	if err := y.Backward(); err != nil || len(order) != 0 {
		t.Errorf("removed hooks ran: %v, %v", order, err)
	}
}
