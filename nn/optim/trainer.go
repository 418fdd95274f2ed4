package optim

import (
	"errors"
	"fmt"
	"math"
	"time"

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

	// KVStore names the store that sums gradients over the workers of a
	// data-parallel job (Gluon's kvstore argument): "dist_sync" (alias
	// "horovod") for MPI, "local" or "" for none. Store, when set, is
	// used instead of the name.
	KVStore string
	Store   KVStore
	// BucketBytes is how many bytes of gradients travel in one allreduce
	// call: small gradients are packed together up to it (default
	// DefaultBucketBytes).
	BucketBytes int
	// ScaleLR multiplies the learning rate by the number of workers, as
	// Horovod's examples do (gradients are always averaged over workers).
	ScaleLR bool
	// Overlap starts the allreduce of a bucket during the backward pass,
	// as soon as the last of its gradients is complete (PyTorch DDP,
	// Horovod), instead of in Step; hybridized blocks hand over each
	// gradient as their compiled backward computes it. It needs exactly
	// one Backward per Step, the same on every worker, and a Backward
	// that is not followed by Step (a saliency map, say) must not run
	// while it is on.
	Overlap bool
}

// DefaultBucketBytes is the default TrainerOptions.BucketBytes (PyTorch
// DDP's 25 MB).
const DefaultBucketBytes = 25 << 20

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

	store       KVStore
	bucketBytes int
	scaleLR     bool
	broadcast   bool         // parameters have been broadcast from rank 0
	buckets     []gradBucket // allreduce plan, remade when active changes
	planned     []int        // the active list the buckets were made for
	commTime    time.Duration

	overlap    bool
	bucketOf   []int            // bucket of each parameter, -1 for none
	pending    []Waiter         // started allreduce of each bucket in this step
	ready      []int            // gradients complete in each bucket in this step
	seen       []bool           // parameters whose gradient hook ran in this step
	hooked     []*eager.NDArray // the arrays carrying the hooks
	overlapErr error
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
	if o.BucketBytes < 0 {
		return nil, fmt.Errorf("trainer: BucketBytes must be positive (or 0 for the default), got %d", o.BucketBytes)
	}
	if o.BucketBytes == 0 {
		o.BucketBytes = DefaultBucketBytes
	}
	store := o.Store
	if store == nil {
		var err error
		if store, err = NewKVStore(o.KVStore); err != nil {
			return nil, fmt.Errorf("trainer: %w", err)
		}
	}
	ps := params.List()
	return &Trainer{params: ps, slots: make([]trainerSlot, len(ps)), opt: opt, clip: o.ClipGradient,
		store: store, bucketBytes: o.BucketBytes, scaleLR: o.ScaleLR, overlap: o.Overlap}, nil
}

// AllreduceTime is the time Step has spent summing gradients over the
// workers so far (packing, sending and unpacking).
func (t *Trainer) AllreduceTime() time.Duration { return t.commTime }

// KVStore is the trainer's store, nil for a single process.
func (t *Trainer) KVStore() KVStore { return t.store }

// Rank is this worker's number in a distributed job (0 without a store).
func (t *Trainer) Rank() int {
	if t.store == nil {
		return 0
	}
	return t.store.Rank()
}

// NumWorkers is the number of workers (1 without a store).
func (t *Trainer) NumWorkers() int {
	if t.store == nil {
		return 1
	}
	return t.store.NumWorkers()
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
//
// With a store, batchSize is this worker's batch: the gradients are
// summed over the workers and rescaled by 1/(batchSize*NumWorkers), so
// that N workers each on b samples step as one process on N*b would. The
// first Step broadcasts the parameters from rank 0 unless
// BroadcastParameters did already.
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
	lrScale := 1.0
	if t.store != nil {
		if !t.broadcast {
			if err := t.BroadcastParameters(); err != nil {
				return err
			}
		}
		if t.store.NumWorkers() > 1 {
			start := time.Now()
			err := t.allreduce(active)
			t.commTime += time.Since(start)
			if err != nil {
				return err
			}
		}
		n := float64(t.store.NumWorkers())
		scale /= n
		if t.scaleLR {
			lrScale = n
		}
	}
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
	lr, wd := t.opt.LearningRate()*lrScale, t.opt.WeightDecay()
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
