package optim_test

import (
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/nn/loss"
	"github.com/hybridgo/hybridgo/nn/optim"
	"github.com/hybridgo/hybridgo/ops"
)

// scaleShift is y = x·A + B, with a constant C added: two trainable
// parameters and a constant.
type scaleShift struct {
	nn.HybridBlock
	A, B, C *nn.Parameter
}

func newScaleShift() *scaleShift {
	s := &scaleShift{A: nn.NewParameter("a", ops.Shape{2}), B: nn.NewParameter("b", ops.Shape{2}),
		C: nn.NewConstant("c", eager.Array([]float32{10, 20}, 2))}
	s.Bind(s)
	return s
}

func (s *scaleShift) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return F.Add(F.Add(F.Mul(x, nn.Param(F, s.A)), nn.Param(F, s.B)), nn.Param(F, s.C))
}

// setParam gives p values and a gradient.
func setParam(t *testing.T, p *nn.Parameter, w, g []float32) {
	t.Helper()
	if err := p.SetData(eager.Array(append([]float32(nil), w...), len(w))); err != nil {
		t.Fatal(err)
	}
	if p.Grad() != nil {
		copy(p.Grad().Data().([]float32), g)
	}
}

func assertValues(t *testing.T, what string, got *eager.NDArray, want []float64) {
	t.Helper()
	if d := optest.FirstDiff(got.Float64s(), want, 1e-6, 1e-7); d >= 0 {
		t.Errorf("%s: %v, want %v", what, got.Float64s(), want)
	}
}

func TestTrainerRescalesByBatchSize(t *testing.T) {
	b := newScaleShift()
	setParam(t, b.A, []float32{1, 2}, []float32{4, -8})
	setParam(t, b.B, []float32{0, 0}, []float32{2, 2})
	tr, err := optim.NewTrainer(b.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 0.5}))
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Step(4); err != nil {
		t.Fatal(err)
	}
	assertValues(t, "a", b.A.Data(), []float64{1 - 0.5*1, 2 + 0.5*2})
	assertValues(t, "b", b.B.Data(), []float64{-0.25, -0.25})
	assertValues(t, "constant", b.C.Data(), []float64{10, 20})
	// The gradient buffers are left as they were.
	assertValues(t, "a's gradient", b.A.Grad(), []float64{4, -8})
}

func TestTrainerLRAndWDMultipliers(t *testing.T) {
	b := newScaleShift()
	setParam(t, b.A, []float32{1, 2}, []float32{1, 1})
	setParam(t, b.B, []float32{1, 2}, []float32{1, 1})
	b.A.LRMult = 0.5
	b.B.WDMult = 0
	tr, err := optim.NewTrainer(b.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 0.1, WD: 0.1}))
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Step(1); err != nil {
		t.Fatal(err)
	}
	// a: lr 0.05, wd 0.1; b: lr 0.1, wd 0.
	assertValues(t, "a", b.A.Data(), []float64{1 - 0.05*(1+0.1*1), 2 - 0.05*(1+0.1*2)})
	assertValues(t, "b", b.B.Data(), []float64{0.9, 1.9})
}

func TestTrainerSkipsGradReqNullAndConstants(t *testing.T) {
	b := newScaleShift()
	setParam(t, b.A, []float32{1, 2}, []float32{1, 1})
	setParam(t, b.B, []float32{3, 4}, nil)
	if err := b.B.SetGradReq(eager.GradNull); err != nil {
		t.Fatal(err)
	}
	tr, err := optim.NewTrainer(b.CollectParams(), optim.NewAdam(optim.AdamOptions{LR: 0.1}))
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Step(1); err != nil {
		t.Fatal(err)
	}
	assertValues(t, "a", b.A.Data(), []float64{0.9, 1.9})
	assertValues(t, "b (grad_req null)", b.B.Data(), []float64{3, 4})
	assertValues(t, "c (constant)", b.C.Data(), []float64{10, 20})
}

// A parameter with grad_req null may stay uninitialised: it is never read.
func TestTrainerUninitialisedParameterIsAnError(t *testing.T) {
	d := nn.NewDense(3) // in units unknown until the first forward
	if err := d.Initialize(); err != nil {
		t.Fatal(err)
	}
	tr, err := optim.NewTrainer(d.CollectParams(), optim.NewSGD(optim.SGDOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	err = tr.Step(1)
	if err == nil || !strings.Contains(err.Error(), d.Weight.Name()) {
		t.Errorf("got %v, want an error naming %s", err, d.Weight.Name())
	}
	// Never initialised at all.
	b := newScaleShift()
	tr, _ = optim.NewTrainer(b.CollectParams(), optim.NewSGD(optim.SGDOptions{}))
	if err := tr.Step(1); err == nil || !strings.Contains(err.Error(), b.A.Name()) || !strings.Contains(err.Error(), "Initialize") {
		t.Errorf("got %v", err)
	}
}

func TestTrainerGlobalNormClipping(t *testing.T) {
	for _, c := range []struct {
		clip  float64
		batch int
		scale float64 // how much the rescaled gradients are shrunk
	}{
		{clip: 1, batch: 2, scale: 1 / 6.5}, // norm of (gradients / 2) is 6.5
		{clip: 10, batch: 2, scale: 1},      // under the limit: untouched
		{clip: 1, batch: 13, scale: 1},      // 13/13 = 1: at the limit
	} {
		b := newScaleShift()
		setParam(t, b.A, []float32{0, 0}, []float32{3, 4})
		setParam(t, b.B, []float32{0, 0}, []float32{12, 0})
		tr, err := optim.NewTrainer(b.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 1}), optim.TrainerOptions{ClipGradient: c.clip})
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Step(c.batch); err != nil {
			t.Fatal(err)
		}
		f := c.scale / float64(c.batch)
		assertValues(t, fmt.Sprintf("clip %v batch %d: a", c.clip, c.batch), b.A.Data(), []float64{-3 * f, -4 * f})
		assertValues(t, fmt.Sprintf("clip %v batch %d: b", c.clip, c.batch), b.B.Data(), []float64{-12 * f, 0})
	}
	if _, err := optim.NewTrainer(newScaleShift().CollectParams(), optim.NewSGD(optim.SGDOptions{}), optim.TrainerOptions{ClipGradient: -1}); err == nil {
		t.Error("a negative clip was accepted")
	}
}

func TestTrainerClippingWarnsOnNaN(t *testing.T) {
	var buf strings.Builder
	old := nn.Warnings
	nn.Warnings = &buf
	defer func() { nn.Warnings = old }()
	b := newScaleShift()
	setParam(t, b.A, []float32{0, 0}, []float32{float32(math.NaN()), 0})
	setParam(t, b.B, []float32{0, 0}, []float32{0, 0})
	tr, _ := optim.NewTrainer(b.CollectParams(), optim.NewSGD(optim.SGDOptions{}), optim.TrainerOptions{ClipGradient: 1})
	if err := tr.Step(1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "NaN") {
		t.Errorf("warnings: %q", buf.String())
	}
}

// Step writes into the parameters' arrays: a hybridized block's cached
// graph sees the new values, and the arrays are the same ones.
func TestTrainerUpdatesInPlace(t *testing.T) {
	b := newScaleShift()
	setParam(t, b.A, []float32{1, 1}, []float32{-2, -4})
	setParam(t, b.B, []float32{0, 0}, []float32{0, 0})
	b.Hybridize()
	x := eager.Array([]float32{1, 1}, 2)
	assertValues(t, "before", b.Forward(x).(*eager.NDArray), []float64{11, 21})
	before := b.A.Data()
	tr, _ := optim.NewTrainer(b.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 1}))
	if err := tr.Step(2); err != nil {
		t.Fatal(err)
	}
	if b.A.Data() != before {
		t.Error("Step replaced the parameter's array")
	}
	assertValues(t, "after", b.Forward(x).(*eager.NDArray), []float64{12, 23})
}

func TestTrainerLearningRateAndSchedule(t *testing.T) {
	b := newScaleShift()
	setParam(t, b.A, []float32{0, 0}, []float32{1, 1})
	setParam(t, b.B, []float32{0, 0}, []float32{0, 0})
	tr, _ := optim.NewTrainer(b.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 1, Schedule: optim.MultiFactorSchedule([]int{1, 2}, 0.5)}))
	var moved []float64
	for i := 0; i < 3; i++ {
		prev := b.A.Data().At(0)
		if err := tr.Step(1); err != nil {
			t.Fatal(err)
		}
		moved = append(moved, prev-b.A.Data().At(0))
	}
	if d := optest.FirstDiff(moved, []float64{1, 0.5, 0.25}, 1e-6, 0); d >= 0 {
		t.Errorf("steps taken %v", moved)
	}
	if lr := tr.LearningRate(); lr != 0.25 {
		t.Errorf("LearningRate %v after 3 steps", lr)
	}
	tr.SetLearningRate(4)
	if lr := tr.LearningRate(); lr != 1 {
		t.Errorf("LearningRate %v after SetLearningRate(4) with the schedule at 0.25", lr)
	}
}

// Adam's bias correction counts each parameter's own updates.
func TestTrainerCountsUpdatesPerParameter(t *testing.T) {
	b := newScaleShift()
	setParam(t, b.A, []float32{0, 0}, []float32{1, 1})
	setParam(t, b.B, []float32{0, 0}, []float32{1, 1})
	tr, _ := optim.NewTrainer(b.CollectParams(), optim.NewAdam(optim.AdamOptions{LR: 0.1}))
	tr.Step(1)
	b.B.SetGradReq(eager.GradNull) // b sits out the second step
	tr.Step(1)
	b.B.SetGradReq(eager.GradWrite)
	copy(b.B.Grad().Data().([]float32), []float32{1, 1})
	tr.Step(1)
	// With a constant gradient every bias-corrected Adam step is lr.
	assertValues(t, "a", b.A.Data(), []float64{-0.3, -0.3})
	assertValues(t, "b", b.B.Data(), []float64{-0.2, -0.2})
}

func TestTrainerErrors(t *testing.T) {
	if _, err := optim.NewTrainer(nil, optim.NewSGD(optim.SGDOptions{})); err == nil {
		t.Error("nil params accepted")
	}
	if _, err := optim.NewTrainer(newScaleShift().CollectParams(), nil); err == nil {
		t.Error("nil optimizer accepted")
	}
	tr, _ := optim.NewTrainer(newScaleShift().CollectParams(), optim.NewSGD(optim.SGDOptions{}))
	if err := tr.Step(0); err == nil || !strings.Contains(err.Error(), "batch size") {
		t.Errorf("Step(0): %v", err)
	}
}

// A small model trains end to end: loss, Backward, Step.
func TestTrainerFitsLinearModel(t *testing.T) {
	old := nn.Warnings
	nn.Warnings = io.Discard
	defer func() { nn.Warnings = old }()
	for _, hybrid := range []bool{false, true} {
		eager.Seed(3)
		net := nn.NewDense(1)
		net.Initialize()
		if hybrid {
			net.Hybridize()
		}
		lossFn := loss.NewL2Loss()
		tr, _ := optim.NewTrainer(net.CollectParams(), optim.NewAdam(optim.AdamOptions{LR: 0.1}))
		x := eager.Array([]float32{0, 1, 2, 3, -1, -2, 0.5, 1.5}, 4, 2)
		y := eager.Array([]float32{-1, 1, 2, -0.5}, 4) // 1 + 3·x0 - 2·x1
		for i := 0; i < 300; i++ {
			var l *eager.NDArray
			eager.Record(func() { l = lossFn.Loss(net.Forward(x), y).(*eager.NDArray) })
			if err := l.Backward(); err != nil {
				t.Fatal(err)
			}
			if err := tr.Step(4); err != nil {
				t.Fatal(err)
			}
		}
		assertValuesTol(t, fmt.Sprintf("hybrid=%v weight", hybrid), net.Weight.Data(), []float64{3, -2}, 1e-2)
		assertValuesTol(t, fmt.Sprintf("hybrid=%v bias", hybrid), net.Bias.Data(), []float64{1}, 1e-2)
	}
}

func assertValuesTol(t *testing.T, what string, got *eager.NDArray, want []float64, tol float64) {
	t.Helper()
	if d := optest.FirstDiff(got.Float64s(), want, tol, tol); d >= 0 {
		t.Errorf("%s: %v, want %v", what, got.Float64s(), want)
	}
}

func ExampleTrainer() {
	eager.Seed(0)
	net := nn.NewDense(1)
	net.Initialize()
	lossFn := loss.NewL2Loss()
	trainer, err := optim.NewTrainer(net.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 0.5}))
	if err != nil {
		panic(err)
	}
	// y = 2x + 1
	x := eager.Array([]float32{0, 0.25, 0.5, 0.75, 1}, 5, 1)
	y := eager.Array([]float32{1, 1.5, 2, 2.5, 3}, 5)
	for epoch := 0; epoch < 200; epoch++ {
		var l *eager.NDArray
		eager.Record(func() { l = lossFn.Loss(net.Forward(x), y).(*eager.NDArray) })
		l.Backward()
		trainer.Step(5)
	}
	fmt.Printf("weight %.2f, bias %.2f\n", net.Weight.Data().Scalar(), net.Bias.Data().Scalar())
	// Output: weight 2.00, bias 1.00
}

// After the first step, which makes the optimizer state, Step allocates
// nothing.
func TestTrainerStepDoesNotAllocate(t *testing.T) {
	for _, opt := range []optim.Optimizer{
		optim.NewSGD(optim.SGDOptions{Momentum: 0.9}), optim.NewAdam(optim.AdamOptions{}), optim.NewAdamW(optim.AdamOptions{}),
		optim.NewRMSProp(optim.RMSPropOptions{Centered: true}), optim.NewAdaGrad(optim.AdaGradOptions{}),
	} {
		b := newScaleShift()
		setParam(t, b.A, []float32{1, 2}, []float32{1, 1})
		setParam(t, b.B, []float32{1, 2}, []float32{1, 1})
		tr, _ := optim.NewTrainer(b.CollectParams(), opt, optim.TrainerOptions{ClipGradient: 1})
		tr.Step(1)
		if n := testing.AllocsPerRun(20, func() { tr.Step(1) }); n != 0 {
			t.Errorf("%T: %v allocations per step", opt, n)
		}
	}
}
