package optim

import (
	"errors"
	"fmt"
	"math"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// TrainerOptions are NewTrainer's options.
type TrainerOptions struct {
	// ClipGradient, when > 0, rescales all gradients together so that
	// their global L2 norm (after the 1/batchSize rescaling) is at most
	// this (Gluon's clip_global_norm).
	ClipGradient float64
}

// Trainer applies an optimizer to a set of parameters (Gluon's Trainer).
// After the gradients are computed (eager.Record, Backward), Step updates
// every parameter in place, so blocks, hybridized or not, keep using the
// same arrays.
type Trainer struct {
	params []*nn.Parameter
	slots  []trainerSlot
	opt    Optimizer
	clip   float64
	active []int // reused by Step
}

// trainerSlot is what the trainer keeps for one parameter.
type trainerSlot struct {
	state any
	made  bool
	size  int
	dtype ops.DType
	t     int // updates of this parameter so far
}

// NewTrainer makes a trainer of params with opt. Parameters may still be
// waiting for deferred initialisation; they must have values by the first
// Step.
func NewTrainer(params *nn.ParameterDict, opt Optimizer, opts ...TrainerOptions) (*Trainer, error) {
	if params == nil {
		return nil, errors.New("trainer: no parameters (pass block.CollectParams())")
	}
	if opt == nil {
		return nil, errors.New("trainer: no optimizer")
	}
	o := nn.OneOption("optim.NewTrainer", opts)
	if o.ClipGradient < 0 || math.IsNaN(o.ClipGradient) {
		return nil, fmt.Errorf("trainer: ClipGradient must be positive (or 0 for none), got %v", o.ClipGradient)
	}
	ps := params.List()
	return &Trainer{params: ps, slots: make([]trainerSlot, len(ps)), opt: opt, clip: o.ClipGradient}, nil
}

// Optimizer returns the trainer's optimizer.
func (t *Trainer) Optimizer() Optimizer { return t.opt }

// LearningRate is the optimizer's current learning rate.
func (t *Trainer) LearningRate() float64 { return t.opt.LearningRate() }

// SetLearningRate sets the optimizer's base learning rate.
func (t *Trainer) SetLearningRate(lr float64) { t.opt.SetLearningRate(lr) }

// Step makes one optimization step: gradients are rescaled by 1/batchSize
// (and clipped to the global norm when asked), and each trainable
// parameter is updated in place with its learning-rate and weight-decay
// multipliers. Constants and parameters with grad_req null are skipped.
// Nothing is updated when a parameter has no values yet; the error names it.
func (t *Trainer) Step(batchSize int) error {
	if batchSize <= 0 {
		return fmt.Errorf("trainer: Step needs a positive batch size, got %d", batchSize)
	}
	active := t.active[:0]
	for i, p := range t.params {
		if p.IsConstant() || p.GradReq() == eager.GradNull {
			continue
		}
		if err := p.Ready(); err != nil {
			return fmt.Errorf("trainer: %w", err)
		}
		if p.Grad() == nil {
			return fmt.Errorf("trainer: parameter %s has no gradient buffer", p.Name())
		}
		active = append(active, i)
	}
	t.active = active
	scale := 1 / float64(batchSize)
	if t.clip > 0 {
		var sum float64
		for _, i := range active {
			sum += sumSquares(t.params[i].Grad().Data())
		}
		norm := math.Sqrt(sum) * scale
		if math.IsNaN(norm) || math.IsInf(norm, 0) {
			fmt.Fprintf(nn.Warnings, "warning: trainer: the global gradient norm is %v; clipping cannot fix it\n", norm)
		} else if c := t.clip / (norm + 1e-8); c < 1 {
			scale *= c
		}
	}
	t.opt.SetNumUpdate(t.opt.NumUpdate() + 1)
	lr, wd := t.opt.LearningRate(), t.opt.WeightDecay()
	for _, i := range active {
		p, s := t.params[i], &t.slots[i]
		w := p.Data()
		if !s.made || s.dtype != w.DType() || s.size != w.Size() {
			// New, or its values were replaced by an array of another size
			// or dtype (Cast): start its state afresh.
			s.state, s.made, s.size, s.dtype = t.opt.CreateState(w), true, w.Size(), w.DType()
		}
		s.t++
		a := UpdateArgs{LR: lr * p.LRMult, WD: wd * p.WDMult, RescaleGrad: scale, T: s.t}
		if err := t.opt.Update(w, p.Grad(), s.state, a); err != nil {
			return fmt.Errorf("trainer: parameter %s: %w", p.Name(), err)
		}
	}
	return nil
}

func sumSquares(data any) float64 {
	var s float64
	switch d := data.(type) {
	case []float32:
		for _, v := range d {
			s += float64(v) * float64(v)
		}
	case []float64:
		for _, v := range d {
			s += v * v
		}
	default:
		for _, v := range ops.ToFloat64s(data) {
			s += v * v
		}
	}
	return s
}
