package optim

import (
	"fmt"
	"math"

	"github.com/hybridgo/hybridgo/accel"
	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// Optimizer updates parameters from their gradients, one parameter at a
// time, keeping whatever state it needs per parameter (momentum, moment
// estimates, …). The Trainer drives it; it can also be used by hand:
//
//	state := opt.CreateState(w)
//	opt.SetNumUpdate(opt.NumUpdate() + 1)
//	err := opt.Update(w, w.Grad(), state, optim.UpdateArgs{LR: opt.LearningRate(), WD: opt.WeightDecay(), RescaleGrad: 1, T: 1})
//
// Embed OptimizerBase to write a new one: it holds the learning rate, its
// schedule, the weight decay and the update count.
type Optimizer interface {
	// CreateState returns the state kept for a parameter with values
	// weight (nil when the optimizer keeps none).
	CreateState(weight *eager.NDArray) any
	// Update changes weight in place from grad and the state CreateState
	// made for it. weight and grad are float32 or float64 arrays of one
	// shape and dtype; grad is left as it is.
	Update(weight, grad *eager.NDArray, state any, a UpdateArgs) error
	// LearningRate is the rate of the current update: the base rate
	// through the schedule, if any, at NumUpdate.
	LearningRate() float64
	// SetLearningRate sets the base rate.
	SetLearningRate(lr float64)
	// WeightDecay is the base weight-decay factor.
	WeightDecay() float64
	// NumUpdate is the number of updates so far (the schedule's step);
	// the Trainer advances it once per step, before the updates.
	NumUpdate() int
	SetNumUpdate(n int)
}

// UpdateArgs is what one update of one parameter uses.
type UpdateArgs struct {
	LR, WD      float64 // the effective rate and decay (schedule and the parameter's multipliers applied)
	RescaleGrad float64 // the gradient is multiplied by this first (the Trainer's 1/batchSize); 0 means 1
	T           int     // how many times this parameter has been updated, this update included (Adam's bias correction)
}

// OptimizerBase holds what every optimizer has: a base learning rate and
// its schedule, weight decay, element-wise gradient clipping and the
// update count. Optimizers embed it.
type OptimizerBase struct {
	LR           float64
	WD           float64
	ClipGradient float64 // clip each rescaled gradient element to [-c, c] when > 0
	Schedule     LRSchedule
	Updates      int
}

// LearningRate is the base rate through the schedule at the update count.
func (b *OptimizerBase) LearningRate() float64 {
	if b.Schedule == nil {
		return b.LR
	}
	return b.Schedule.LR(b.LR, b.Updates)
}

// SetLearningRate sets the base rate (a schedule then scales it).
func (b *OptimizerBase) SetLearningRate(lr float64) { b.LR = lr }

// WeightDecay is the weight-decay factor.
func (b *OptimizerBase) WeightDecay() float64 { return b.WD }

// NumUpdate is the number of updates so far.
func (b *OptimizerBase) NumUpdate() int { return b.Updates }

// SetNumUpdate sets the update count.
func (b *OptimizerBase) SetNumUpdate(n int) { b.Updates = n }

// clipTo clips g to [-c, c] when c > 0.
func clipTo(g, c float64) float64 {
	if c > 0 {
		return math.Max(-c, math.Min(c, g))
	}
	return g
}

func orDefault(v, d float64) float64 {
	if v == 0 {
		return d
	}
	return v
}

// checkUpdate refuses weights that are not float32 or float64, and
// gradients that disagree with their weight.
func checkUpdate(name string, weight, grad *eager.NDArray) error {
	if weight == nil || grad == nil {
		return fmt.Errorf("%s: update needs a weight and a gradient", name)
	}
	if d := weight.DType(); d != ops.Float32 && d != ops.Float64 {
		return fmt.Errorf("%s: cannot update a %v weight; parameters must be float32 or float64", name, d)
	}
	if weight.DType() != grad.DType() || !weight.Value().Shape.Equal(grad.Value().Shape) {
		return fmt.Errorf("%s: weight %v %v and gradient %v %v disagree", name, weight.Shape(), weight.DType(), grad.Shape(), grad.DType())
	}
	return nil
}

// buffer is one state array, the same dtype and length as its weight.
func buffer(weight *eager.NDArray) any { return ops.MakeData(weight.DType(), weight.Size()) }

func bufferFits(buf any, weight *eager.NDArray) bool {
	switch b := buf.(type) {
	case []float32:
		return weight.DType() == ops.Float32 && len(b) == weight.Size()
	case []float64:
		return weight.DType() == ops.Float64 && len(b) == weight.Size()
	}
	return false
}

func rescale(a UpdateArgs) float64 {
	if a.RescaleGrad == 0 {
		return 1
	}
	return a.RescaleGrad
}

type float interface{ ~float32 | ~float64 }

// ---- SGD ----

// SGDOptions are SGD's options.
type SGDOptions struct {
	LR           float64 // 0 means 0.01
	Momentum     float64
	WD           float64
	Nesterov     bool // Nesterov momentum (MXNet's NAG)
	ClipGradient float64
	Schedule     LRSchedule
}

// SGD is stochastic gradient descent, with optional (Nesterov) momentum
// and weight decay. With g the rescaled, clipped gradient:
//
//	plain:    w ← w - lr·(g + wd·w)
//	momentum: m ← μ·m - lr·(g + wd·w); w ← w + m
//	Nesterov: g' = g + wd·w; m ← μ·m + g'; w ← w - lr·(g' + μ·m)
type SGD struct {
	OptimizerBase
	Momentum float64
	Nesterov bool
}

// NewSGD makes an SGD optimizer.
func NewSGD(o SGDOptions) Optimizer {
	return &SGD{OptimizerBase: OptimizerBase{LR: orDefault(o.LR, 0.01), WD: o.WD, ClipGradient: o.ClipGradient, Schedule: o.Schedule},
		Momentum: o.Momentum, Nesterov: o.Nesterov}
}

type momentumState struct{ mom any }

// CreateState makes the momentum buffer (nil without momentum).
func (s *SGD) CreateState(weight *eager.NDArray) any {
	if s.Momentum == 0 {
		return nil
	}
	return &momentumState{buffer(weight)}
}

// Update applies one step.
func (s *SGD) Update(weight, grad *eager.NDArray, state any, a UpdateArgs) error {
	if err := checkUpdate("sgd", weight, grad); err != nil {
		return err
	}
	var mom any
	if s.Momentum != 0 {
		st, ok := state.(*momentumState)
		if !ok || !bufferFits(st.mom, weight) {
			return fmt.Errorf("sgd: the state does not belong to this weight (make it with CreateState)")
		}
		mom = st.mom
	}
	switch w := weight.Data().(type) {
	case []float32:
		m, _ := mom.([]float32)
		sgdKernel(s, w, grad.Data().([]float32), m, a)
	case []float64:
		m, _ := mom.([]float64)
		sgdKernel(s, w, grad.Data().([]float64), m, a)
	}
	return nil
}

func sgdKernel[T float](s *SGD, w, g, mom []T, a UpdateArgs) {
	lr, wd, rs, mu, c := a.LR, a.WD, rescale(a), s.Momentum, s.ClipGradient
	switch {
	case mom == nil && c <= 0:
		// w = (1 - lr·wd)·w - lr·rescale·g, as two vector passes in T.
		if wd != 0 {
			accel.Scale(T(1-lr*wd), w)
		}
		accel.Axpy(T(-lr*rs), g, w)
	case mom == nil:
		for i := range w {
			wi := float64(w[i])
			w[i] = T(wi - lr*(clipTo(float64(g[i])*rs, c)+wd*wi))
		}
	case s.Nesterov:
		for i := range w {
			wi := float64(w[i])
			gi := clipTo(float64(g[i])*rs, c) + wd*wi
			m := mu*float64(mom[i]) + gi
			mom[i] = T(m)
			w[i] = T(wi - lr*(gi+mu*m))
		}
	default:
		for i := range w {
			wi := float64(w[i])
			m := mu*float64(mom[i]) - lr*(clipTo(float64(g[i])*rs, c)+wd*wi)
			mom[i] = T(m)
			w[i] = T(wi + m)
		}
	}
}

// ---- Adam and AdamW ----

// AdamOptions are the options of Adam and AdamW.
type AdamOptions struct {
	LR           float64 // 0 means 0.001
	Beta1, Beta2 float64 // 0 means 0.9 and 0.999
	Epsilon      float64 // 0 means 1e-8
	WD           float64
	ClipGradient float64
	Schedule     LRSchedule
}

// Adam is the Adam optimizer as MXNet runs it. With g = clip(rescale·grad
// + wd·w) and t the parameter's update count:
//
//	m ← β1·m + (1-β1)·g;  v ← β2·v + (1-β2)·g²
//	w ← w - lr·√(1-β2ᵗ)/(1-β1ᵗ) · m/(√v + ε)
//
// AdamW (Decoupled set) leaves the decay out of g and shrinks the weight
// directly instead: w ← w - lr·wd·w - (the step above).
type Adam struct {
	OptimizerBase
	Beta1, Beta2, Epsilon float64
	Decoupled             bool
}

func newAdam(o AdamOptions, decoupled bool) *Adam {
	return &Adam{OptimizerBase: OptimizerBase{LR: orDefault(o.LR, 0.001), WD: o.WD, ClipGradient: o.ClipGradient, Schedule: o.Schedule},
		Beta1: orDefault(o.Beta1, 0.9), Beta2: orDefault(o.Beta2, 0.999), Epsilon: orDefault(o.Epsilon, 1e-8), Decoupled: decoupled}
}

// NewAdam makes an Adam optimizer; weight decay is added to the gradient.
func NewAdam(o AdamOptions) Optimizer { return newAdam(o, false) }

// NewAdamW makes an Adam optimizer with decoupled weight decay
// (Loshchilov and Hutter): the weight shrinks by lr·wd·w each step,
// outside the adaptive step.
func NewAdamW(o AdamOptions) Optimizer { return newAdam(o, true) }

type adamState struct{ mean, vari any }

// CreateState makes the first and second moment buffers.
func (s *Adam) CreateState(weight *eager.NDArray) any {
	return &adamState{buffer(weight), buffer(weight)}
}

func (s *Adam) name() string {
	if s.Decoupled {
		return "adamw"
	}
	return "adam"
}

// Update applies one step.
func (s *Adam) Update(weight, grad *eager.NDArray, state any, a UpdateArgs) error {
	if err := checkUpdate(s.name(), weight, grad); err != nil {
		return err
	}
	st, ok := state.(*adamState)
	if !ok || !bufferFits(st.mean, weight) || !bufferFits(st.vari, weight) {
		return fmt.Errorf("%s: the state does not belong to this weight (make it with CreateState)", s.name())
	}
	switch w := weight.Data().(type) {
	case []float32:
		adamKernel(s, w, grad.Data().([]float32), st.mean.([]float32), st.vari.([]float32), a)
	case []float64:
		adamKernel(s, w, grad.Data().([]float64), st.mean.([]float64), st.vari.([]float64), a)
	}
	return nil
}

func adamKernel[T float](s *Adam, w, g, mean, vari []T, a UpdateArgs) {
	t := float64(max(a.T, 1))
	b1, b2, eps, c, rs := s.Beta1, s.Beta2, s.Epsilon, s.ClipGradient, rescale(a)
	lrT := a.LR * math.Sqrt(1-math.Pow(b2, t)) / (1 - math.Pow(b1, t))
	decay, wdG := a.LR*a.WD, a.WD
	if !s.Decoupled {
		decay = 0
	} else {
		wdG = 0
	}
	for i := range w {
		wi := float64(w[i])
		gi := clipTo(float64(g[i])*rs+wdG*wi, c)
		m := b1*float64(mean[i]) + (1-b1)*gi
		v := b2*float64(vari[i]) + (1-b2)*gi*gi
		mean[i], vari[i] = T(m), T(v)
		w[i] = T(wi - decay*wi - lrT*m/(math.Sqrt(v)+eps))
	}
}

// ---- RMSProp ----

// RMSPropOptions are RMSProp's options.
type RMSPropOptions struct {
	LR           float64 // 0 means 0.001
	Gamma1       float64 // decay of the squared-gradient average; 0 means 0.9
	Gamma2       float64 // momentum of the centered form; 0 means 0.9
	Epsilon      float64 // 0 means 1e-8
	Centered     bool    // Graves's centered form, which subtracts the mean gradient
	WD           float64
	ClipGradient float64
	Schedule     LRSchedule
}

// RMSProp scales steps by a running average of squared gradients. With
// g = clip(rescale·grad + wd·w):
//
//	plain:    n ← γ1·n + (1-γ1)·g²; w ← w - lr·g/√(n + ε)
//	centered: n as above; ḡ ← γ1·ḡ + (1-γ1)·g;
//	          δ ← γ2·δ - lr·g/√(n - ḡ² + ε); w ← w + δ
type RMSProp struct {
	OptimizerBase
	Gamma1, Gamma2, Epsilon float64
	Centered                bool
}

// NewRMSProp makes an RMSProp optimizer.
func NewRMSProp(o RMSPropOptions) Optimizer {
	return &RMSProp{OptimizerBase: OptimizerBase{LR: orDefault(o.LR, 0.001), WD: o.WD, ClipGradient: o.ClipGradient, Schedule: o.Schedule},
		Gamma1: orDefault(o.Gamma1, 0.9), Gamma2: orDefault(o.Gamma2, 0.9), Epsilon: orDefault(o.Epsilon, 1e-8), Centered: o.Centered}
}

type rmspropState struct{ n, gbar, delta any }

// CreateState makes the running averages (and, centered, the mean
// gradient and the momentum).
func (s *RMSProp) CreateState(weight *eager.NDArray) any {
	if s.Centered {
		return &rmspropState{buffer(weight), buffer(weight), buffer(weight)}
	}
	return &rmspropState{n: buffer(weight)}
}

// Update applies one step.
func (s *RMSProp) Update(weight, grad *eager.NDArray, state any, a UpdateArgs) error {
	if err := checkUpdate("rmsprop", weight, grad); err != nil {
		return err
	}
	st, ok := state.(*rmspropState)
	if !ok || !bufferFits(st.n, weight) || s.Centered && (!bufferFits(st.gbar, weight) || !bufferFits(st.delta, weight)) {
		return fmt.Errorf("rmsprop: the state does not belong to this weight (make it with CreateState)")
	}
	switch w := weight.Data().(type) {
	case []float32:
		gb, _ := st.gbar.([]float32)
		d, _ := st.delta.([]float32)
		rmspropKernel(s, w, grad.Data().([]float32), st.n.([]float32), gb, d, a)
	case []float64:
		gb, _ := st.gbar.([]float64)
		d, _ := st.delta.([]float64)
		rmspropKernel(s, w, grad.Data().([]float64), st.n.([]float64), gb, d, a)
	}
	return nil
}

func rmspropKernel[T float](s *RMSProp, w, g, n, gbar, delta []T, a UpdateArgs) {
	g1, g2, eps, c, rs, lr, wd := s.Gamma1, s.Gamma2, s.Epsilon, s.ClipGradient, rescale(a), a.LR, a.WD
	for i := range w {
		wi := float64(w[i])
		gi := clipTo(float64(g[i])*rs+wd*wi, c)
		ni := g1*float64(n[i]) + (1-g1)*gi*gi
		n[i] = T(ni)
		if !s.Centered {
			w[i] = T(wi - lr*gi/math.Sqrt(ni+eps))
			continue
		}
		gb := g1*float64(gbar[i]) + (1-g1)*gi
		d := g2*float64(delta[i]) - lr*gi/math.Sqrt(ni-gb*gb+eps)
		gbar[i], delta[i] = T(gb), T(d)
		w[i] = T(wi + d)
	}
}

// ---- AdaGrad ----

// AdaGradOptions are AdaGrad's options.
type AdaGradOptions struct {
	LR           float64 // 0 means 0.01
	Epsilon      float64 // 0 means 1e-7
	WD           float64
	ClipGradient float64
	Schedule     LRSchedule
}

// AdaGrad scales steps by the accumulated squared gradients. With
// g = clip(rescale·grad):
//
//	h ← h + g²; w ← w - lr·(g/√(h + ε) + wd·w)
type AdaGrad struct {
	OptimizerBase
	Epsilon float64
}

// NewAdaGrad makes an AdaGrad optimizer.
func NewAdaGrad(o AdaGradOptions) Optimizer {
	return &AdaGrad{OptimizerBase: OptimizerBase{LR: orDefault(o.LR, 0.01), WD: o.WD, ClipGradient: o.ClipGradient, Schedule: o.Schedule},
		Epsilon: orDefault(o.Epsilon, 1e-7)}
}

type adagradState struct{ history any }

// CreateState makes the accumulated squared gradient.
func (s *AdaGrad) CreateState(weight *eager.NDArray) any { return &adagradState{buffer(weight)} }

// Update applies one step.
func (s *AdaGrad) Update(weight, grad *eager.NDArray, state any, a UpdateArgs) error {
	if err := checkUpdate("adagrad", weight, grad); err != nil {
		return err
	}
	st, ok := state.(*adagradState)
	if !ok || !bufferFits(st.history, weight) {
		return fmt.Errorf("adagrad: the state does not belong to this weight (make it with CreateState)")
	}
	switch w := weight.Data().(type) {
	case []float32:
		adagradKernel(s, w, grad.Data().([]float32), st.history.([]float32), a)
	case []float64:
		adagradKernel(s, w, grad.Data().([]float64), st.history.([]float64), a)
	}
	return nil
}

func adagradKernel[T float](s *AdaGrad, w, g, h []T, a UpdateArgs) {
	eps, c, rs, lr, wd := s.Epsilon, s.ClipGradient, rescale(a), a.LR, a.WD
	for i := range w {
		wi := float64(w[i])
		gi := clipTo(float64(g[i])*rs, c)
		hi := float64(h[i]) + gi*gi
		h[i] = T(hi)
		w[i] = T(wi - lr*(gi/math.Sqrt(hi+eps)+wd*wi))
	}
}
