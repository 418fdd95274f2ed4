package loss_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/nn/loss"
	"github.com/hybridgo/hybridgo/ops"
)

type lossBlock interface {
	Loss(pred, label ops.Tensor, sampleWeight ...ops.Tensor) ops.Tensor
	Hybridize(opts ...nn.HybridizeOptions)
	Name() string
}

func arr64(shape []int, v ...float64) *eager.NDArray { return eager.Array(v, shape...) }

func softplus(x float64) float64 { return math.Log1p(math.Exp(x)) }
func sigmoid(x float64) float64  { return 1 / (1 + math.Exp(-x)) }

// logSoftmaxRow is a plain reference of log_softmax over one row.
func logSoftmaxRow(row []float64) []float64 {
	var s float64
	for _, v := range row {
		s += math.Exp(v)
	}
	out := make([]float64, len(row))
	for i, v := range row {
		out[i] = v - math.Log(s)
	}
	return out
}

type lossCase struct {
	name        string
	make        func() lossBlock
	pred, label *eager.NDArray
	weight      *eager.NDArray // sample weight, or nil
	want        []float64      // per-sample loss, computed by hand
}

func lossCases() []lossCase {
	p22 := func() *eager.NDArray { return arr64([]int{2, 2}, 1, 2, 3, 4) }
	l22 := func() *eager.NDArray { return arr64([]int{2, 2}, 0, 2, 1, 1) }
	scores := func() *eager.NDArray { return arr64([]int{2, 3}, 1, 2, 3, 1, 1, 1) }
	ls0, ls1 := logSoftmaxRow([]float64{1, 2, 3}), logSoftmaxRow([]float64{1, 1, 1})
	logits := func() *eager.NDArray { return arr64([]int{2, 2}, 0.5, 2, -1, 3) }
	bin := func() *eager.NDArray { return arr64([]int{2, 2}, 0, 1, 1, 0) }
	bce := []float64{softplus(0.5), softplus(2) - 2, softplus(-1) + 1, softplus(3)}
	probs := []float64{0.2, 0.9, 0.6, 0.3}
	bceP := func(p, z, w float64) float64 { return -(w*z*math.Log(p) + (1-z)*math.Log(1-p)) }
	posW := eager.Array([]float64{2, 3}, 2)
	// KL: label distributions and log-probabilities.
	q := []float64{0.25, 0.75, 0.5, 0.5}
	lp := []float64{math.Log(0.5), math.Log(0.5), math.Log(0.1), math.Log(0.9)}
	kl := func(i int) float64 { return q[i] * (math.Log(q[i]) - lp[i]) }
	return []lossCase{
		{"L2", func() lossBlock { return loss.NewL2Loss() }, p22(), l22(), nil, []float64{0.25, 3.25}},
		{"L2/label reshaped", func() lossBlock { return loss.NewL2Loss() }, arr64([]int{3, 1}, 1, 2, 3), arr64([]int{3}, 1, 0, 5), nil, []float64{0, 2, 2}},
		{"L2/weight and sample weight", func() lossBlock { return loss.NewL2Loss(loss.Options{Weight: 4}) }, p22(), l22(), arr64([]int{2, 1}, 1, 0.5), []float64{1, 6.5}},
		{"L2/1-D", func() lossBlock { return loss.NewL2Loss() }, arr64([]int{3}, 1, 2, 3), arr64([]int{3}, 1, 0, 5), nil, []float64{0, 2, 2}},
		{"L1", func() lossBlock { return loss.NewL1Loss() }, p22(), l22(), nil, []float64{0.5, 2.5}},
		{"L1/sample weight", func() lossBlock { return loss.NewL1Loss() }, p22(), l22(), arr64([]int{2, 1}, 2, 0), []float64{1, 0}},
		{"SoftmaxCE", func() lossBlock { return loss.NewSoftmaxCrossEntropyLoss() }, scores(), arr64([]int{2}, 2, 0), nil, []float64{-ls0[2], -ls1[0]}},
		{"SoftmaxCE/labels N×1", func() lossBlock { return loss.NewSoftmaxCrossEntropyLoss() }, scores(), arr64([]int{2, 1}, 2, 0), nil, []float64{-ls0[2], -ls1[0]}},
		{"SoftmaxCE/dense label", func() lossBlock { return loss.NewSoftmaxCrossEntropyLoss(loss.SoftmaxCELossOptions{DenseLabel: true}) },
			scores(), arr64([]int{2, 3}, 0, 0.5, 0.5, 1, 0, 0), nil, []float64{-(ls0[1] + ls0[2]) / 2, -ls1[0]}},
		{"SoftmaxCE/from logits", func() lossBlock { return loss.NewSoftmaxCrossEntropyLoss(loss.SoftmaxCELossOptions{FromLogits: true}) },
			scores(), arr64([]int{2}, 1, 2), nil, []float64{-2, -1}},
		{"SoftmaxCE/weights", func() lossBlock { return loss.NewSoftmaxCrossEntropyLoss(loss.SoftmaxCELossOptions{Weight: 2}) },
			scores(), arr64([]int{2}, 2, 0), arr64([]int{2, 1}, 0.5, 3), []float64{-ls0[2], -6 * ls1[0]}},
		{"SoftmaxCE/axis 1 of 3-D", func() lossBlock { return loss.NewSoftmaxCrossEntropyLoss(loss.SoftmaxCELossOptions{Axis: 1}) },
			arr64([]int{1, 3, 2}, 1, 1, 2, 1, 3, 1), arr64([]int{1, 2}, 2, 0), nil, []float64{(-ls0[2] - ls1[0]) / 2}},
		{"SigmoidBCE", func() lossBlock { return loss.NewSigmoidBinaryCrossEntropyLoss() }, logits(), bin(), nil,
			[]float64{(bce[0] + bce[1]) / 2, (bce[2] + bce[3]) / 2}},
		{"SigmoidBCE/pos weight", func() lossBlock {
			return loss.NewSigmoidBinaryCrossEntropyLoss(loss.SigmoidBCELossOptions{PosWeight: posW})
		}, logits(), bin(), nil, []float64{
			(bceP(sigmoid(0.5), 0, 2) + bceP(sigmoid(2), 1, 3)) / 2, (bceP(sigmoid(-1), 1, 2) + bceP(sigmoid(3), 0, 3)) / 2}},
		{"SigmoidBCE/from sigmoid", func() lossBlock {
			return loss.NewSigmoidBinaryCrossEntropyLoss(loss.SigmoidBCELossOptions{FromSigmoid: true})
		}, arr64([]int{2, 2}, probs...), bin(), nil, []float64{
			(bceP(probs[0], 0, 1) + bceP(probs[1], 1, 1)) / 2, (bceP(probs[2], 1, 1) + bceP(probs[3], 0, 1)) / 2}},
		{"SigmoidBCE/from sigmoid, pos weight", func() lossBlock {
			return loss.NewSigmoidBinaryCrossEntropyLoss(loss.SigmoidBCELossOptions{FromSigmoid: true, PosWeight: posW})
		}, arr64([]int{2, 2}, probs...), bin(), nil, []float64{
			(bceP(probs[0], 0, 2) + bceP(probs[1], 1, 3)) / 2, (bceP(probs[2], 1, 2) + bceP(probs[3], 0, 3)) / 2}},
		{"Huber", func() lossBlock { return loss.NewHuberLoss() }, arr64([]int{2, 2}, 0.5, 0, 3, -1), arr64([]int{2, 2}, 0, 0, 1, 0.5),
			nil, []float64{0.125 / 2, (1.5 + 1) / 2}},
		{"Huber/rho 2", func() lossBlock { return loss.NewHuberLoss(loss.HuberLossOptions{Rho: 2}) }, arr64([]int{2, 1}, 1, 5), arr64([]int{2}, 0, 0),
			nil, []float64{0.25, 4}},
		{"KLDiv", func() lossBlock { return loss.NewKLDivLoss() }, arr64([]int{2, 2}, lp...), arr64([]int{2, 2}, q...), nil,
			[]float64{(kl(0) + kl(1)) / 2, (kl(2) + kl(3)) / 2}},
		{"KLDiv/not from logits", func() lossBlock { return loss.NewKLDivLoss(loss.KLDivLossOptions{NotFromLogits: true}) },
			arr64([]int{2, 2}, 0, 0, 1, 1+math.Log(9)), arr64([]int{2, 2}, q...), nil, []float64{(kl(0) + kl(1)) / 2, (kl(2) + kl(3)) / 2}},
	}
}

func runLoss(l lossBlock, c lossCase, pred *eager.NDArray) *eager.NDArray {
	if c.weight != nil {
		return l.Loss(pred, c.label, c.weight).(*eager.NDArray)
	}
	return l.Loss(pred, c.label).(*eager.NDArray)
}

func TestLossValues(t *testing.T) {
	for _, c := range lossCases() {
		t.Run(c.name, func(t *testing.T) {
			got := runLoss(c.make(), c, c.pred)
			if !got.Shape().Equal(ops.Shape{len(c.want)}) {
				t.Fatalf("shape %v, want (%d,)", got.Shape(), len(c.want))
			}
			if d := optest.FirstDiff(got.Float64s(), c.want, 1e-6, 1e-9); d >= 0 {
				t.Errorf("loss %v, want %v", got.Float64s(), c.want)
			}
		})
	}
}

// Each loss's gradient with respect to pred, from autograd, agrees with
// central differences of the loss itself.
func TestLossGradients(t *testing.T) {
	for _, c := range lossCases() {
		t.Run(c.name, func(t *testing.T) {
			l := c.make()
			pred := c.pred.Copy()
			pred.AttachGrad()
			var total *eager.NDArray
			eager.Record(func() { total = eager.F.Sum(runLoss(l, c, pred)).(*eager.NDArray) })
			if err := total.Backward(); err != nil {
				t.Fatal(err)
			}
			got := pred.Grad().Float64s()
			base := c.pred.Float64s()
			const h = 1e-6
			for i := range base {
				at := func(d float64) float64 {
					v := append([]float64(nil), base...)
					v[i] += d
					return eager.F.Sum(runLoss(l, c, eager.Array(v, c.pred.Shape()...))).Scalar()
				}
				want := (at(h) - at(-h)) / (2 * h)
				if !optest.Close(got[i], want, 1e-4, 1e-6) {
					t.Errorf("d loss / d pred[%d] = %v, numerically %v", i, got[i], want)
				}
			}
		})
	}
}

// Hand-derived gradients for the common losses.
func TestLossGradientValues(t *testing.T) {
	sm := func(row []float64) []float64 {
		ls := logSoftmaxRow(row)
		for i := range ls {
			ls[i] = math.Exp(ls[i])
		}
		return ls
	}
	s0, s1 := sm([]float64{1, 2, 3}), sm([]float64{1, 1, 1})
	for _, c := range []struct {
		name        string
		l           lossBlock
		pred, label *eager.NDArray
		want        []float64
	}{
		{"L2", loss.NewL2Loss(), arr64([]int{2, 2}, 1, 2, 3, 4), arr64([]int{2, 2}, 0, 2, 1, 1), []float64{0.5, 0, 1, 1.5}},
		{"L1", loss.NewL1Loss(), arr64([]int{2, 2}, 1, 2, 3, 4), arr64([]int{2, 2}, 0, 3, 1, 1), []float64{0.5, -0.5, 0.5, 0.5}},
		{"SoftmaxCE", loss.NewSoftmaxCrossEntropyLoss(), arr64([]int{2, 3}, 1, 2, 3, 1, 1, 1), arr64([]int{2}, 2, 0),
			[]float64{s0[0], s0[1], s0[2] - 1, s1[0] - 1, s1[1], s1[2]}},
		{"SigmoidBCE", loss.NewSigmoidBinaryCrossEntropyLoss(), arr64([]int{1, 2}, 0.5, 2), arr64([]int{1, 2}, 0, 1),
			[]float64{sigmoid(0.5) / 2, (sigmoid(2) - 1) / 2}},
	} {
		pred := c.pred
		pred.AttachGrad()
		var total *eager.NDArray
		eager.Record(func() { total = eager.F.Sum(c.l.Loss(pred, c.label)).(*eager.NDArray) })
		if err := total.Backward(); err != nil {
			t.Fatal(err)
		}
		if d := optest.FirstDiff(pred.Grad().Float64s(), c.want, 1e-6, 1e-9); d >= 0 {
			t.Errorf("%s: gradient %v, want %v", c.name, pred.Grad().Float64s(), c.want)
		}
	}
}

func TestLossHybridizedEqualsEager(t *testing.T) {
	for _, c := range lossCases() {
		t.Run(c.name, func(t *testing.T) {
			l := c.make()
			want := runLoss(l, c, c.pred).Float64s()
			l.Hybridize()
			for i := 0; i < 2; i++ { // trace, then the cached graph
				got := runLoss(l, c, c.pred).Float64s()
				if d := optest.FirstDiff(got, want, 1e-6, 1e-9); d >= 0 {
					t.Errorf("call %d: hybridized %v, eager %v", i, got, want)
				}
			}
		})
	}
}

// Gradients also flow through a hybridized loss.
func TestLossHybridizedGradient(t *testing.T) {
	for _, hybrid := range []bool{false, true} {
		l := loss.NewSoftmaxCrossEntropyLoss()
		if hybrid {
			l.Hybridize()
		}
		pred := eager.Array([]float32{1, 2, 3, 1, 1, 1}, 2, 3)
		pred.AttachGrad()
		var total *eager.NDArray
		eager.Record(func() { total = eager.F.Sum(l.Loss(pred, eager.Array([]float32{2, 0}, 2))).(*eager.NDArray) })
		if err := total.Backward(); err != nil {
			t.Fatal(err)
		}
		g := pred.Grad().Float64s()
		if !optest.Close(g[2], sigmoidLike(), 1e-5, 1e-6) || !optest.Close(g[3], 1.0/3-1, 1e-5, 1e-6) {
			t.Errorf("hybridized=%v: gradient %v", hybrid, g)
		}
	}
}

// sigmoidLike is softmax([1 2 3])[2] - 1.
func sigmoidLike() float64 { return math.Exp(3)/(math.E+math.Exp(2)+math.Exp(3)) - 1 }

func TestLossNamesAndErrors(t *testing.T) {
	l := loss.NewL2Loss()
	if !strings.HasPrefix(l.Name(), "l2loss") {
		t.Errorf("name %q", l.Name())
	}
	if n := l.CollectParams().Len(); n != 0 {
		t.Errorf("L2Loss has %d parameters", n)
	}
	defer func() {
		r := recover()
		err, _ := r.(error)
		if err == nil || !strings.Contains(err.Error(), "l2loss") {
			t.Errorf("got %v", r)
		}
	}()
	l.ForwardN(eager.Ones(2))
}

// The positive weight of SigmoidBCE is a constant, which a Trainer skips.
func TestSigmoidBCEPosWeightIsConstant(t *testing.T) {
	l := loss.NewSigmoidBinaryCrossEntropyLoss(loss.SigmoidBCELossOptions{PosWeight: eager.Array([]float32{2}, 1)})
	ps := l.CollectParams().List()
	if len(ps) != 1 || !ps[0].IsConstant() || !strings.HasSuffix(ps[0].Name(), "_pos_weight") {
		t.Errorf("params %v", l.CollectParams())
	}
}

// A constructor given two options values says so, rather than using the
// first and dropping the other.
func TestTwoOptionsPanic(t *testing.T) {
	for _, c := range []struct {
		name string
		make func()
	}{
		{"loss.NewL2Loss", func() { loss.NewL2Loss(loss.Options{}, loss.Options{}) }},
		{"loss.NewSoftmaxCrossEntropyLoss", func() {
			loss.NewSoftmaxCrossEntropyLoss(loss.SoftmaxCELossOptions{}, loss.SoftmaxCELossOptions{})
		}},
	} {
		func() {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), c.name+" takes at most one") {
					t.Errorf("%s with two options: %v", c.name, r)
				}
			}()
			c.make()
		}()
	}
}
