package loss

import (
	"fmt"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// Options are the options every loss has.
type Options struct {
	Weight    float64 // global scale of the loss; 0 means 1
	BatchAxis int     // the axis that indexes samples (0)
}

func (o Options) weight() float64 {
	if o.Weight == 0 {
		return 1
	}
	return o.Weight
}

// lossInputs checks the inputs of a loss's forward: pred, label and an
// optional sample weight.
func lossInputs(name string, xs []ops.Tensor) (pred, label, sampleWeight ops.Tensor) {
	if len(xs) != 2 && len(xs) != 3 {
		panic(fmt.Errorf("%s takes pred, label and an optional sample weight, got %d inputs", name, len(xs)))
	}
	if len(xs) == 3 {
		sampleWeight = xs[2]
	}
	return xs[0], xs[1], sampleWeight
}

// finishLoss applies the sample weight and the global weight, then averages
// over every axis but the batch axis (Gluon's _apply_weighting and mean).
func finishLoss(F ops.F, loss, sampleWeight ops.Tensor, weight float64, batchAxis int) ops.Tensor {
	if sampleWeight != nil {
		loss = F.Mul(loss, sampleWeight)
	}
	if weight != 1 {
		loss = F.MulScalar(loss, weight)
	}
	nameOutput(F)
	return F.Mean(loss, ops.Axis(batchAxis), ops.Attr{Name: "exclude", Value: true})
}

// nameOutput names the node the next op records "fwd" within the loss's
// name, as nn's layers name their outputs (softmaxcrossentropyloss0_fwd).
func nameOutput(F ops.F) {
	if t, ok := F.Interpreter().(*graph.Tracer); ok {
		t.NameNext("fwd")
	}
}

// runLoss runs a loss block on its inputs and returns the loss.
func runLoss(b *nn.HybridBlock, pred, label ops.Tensor, sampleWeight []ops.Tensor) ops.Tensor {
	in := []ops.Tensor{pred, label}
	if len(sampleWeight) > 1 {
		panic(fmt.Errorf("%s: Loss takes at most one sample weight, got %d", b.Name(), len(sampleWeight)))
	}
	if len(sampleWeight) == 1 && sampleWeight[0] != nil {
		in = append(in, sampleWeight[0])
	}
	return b.ForwardN(in...)[0]
}

// L2Loss is half the squared error: 0.5 * Weight * (pred - label)².
type L2Loss struct {
	nn.HybridBlock
	Weight    float64
	BatchAxis int
}

// NewL2Loss makes an L2 loss. The label is reshaped to pred's shape.
func NewL2Loss(opts ...Options) *L2Loss {
	o := nn.OneOption("loss.NewL2Loss", opts)
	l := &L2Loss{Weight: o.weight(), BatchAxis: o.BatchAxis}
	l.BindN(l)
	return l
}

// HybridForwardN computes the loss of pred against label.
func (l *L2Loss) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	pred, label, sw := lossInputs(l.Name(), xs)
	loss := F.Square(F.Sub(F.ReshapeLike(label, pred), pred))
	return []ops.Tensor{finishLoss(F, loss, sw, l.Weight/2, l.BatchAxis)}
}

// Loss returns the per-sample loss.
func (l *L2Loss) Loss(pred, label ops.Tensor, sampleWeight ...ops.Tensor) ops.Tensor {
	return runLoss(&l.HybridBlock, pred, label, sampleWeight)
}

// L1Loss is the absolute error: Weight * |pred - label|.
type L1Loss struct {
	nn.HybridBlock
	Weight    float64
	BatchAxis int
}

// NewL1Loss makes an L1 loss. The label is reshaped to pred's shape.
func NewL1Loss(opts ...Options) *L1Loss {
	o := nn.OneOption("loss.NewL1Loss", opts)
	l := &L1Loss{Weight: o.weight(), BatchAxis: o.BatchAxis}
	l.BindN(l)
	return l
}

// HybridForwardN computes the loss of pred against label.
func (l *L1Loss) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	pred, label, sw := lossInputs(l.Name(), xs)
	loss := F.Abs(F.Sub(F.ReshapeLike(label, pred), pred))
	return []ops.Tensor{finishLoss(F, loss, sw, l.Weight, l.BatchAxis)}
}

// Loss returns the per-sample loss.
func (l *L1Loss) Loss(pred, label ops.Tensor, sampleWeight ...ops.Tensor) ops.Tensor {
	return runLoss(&l.HybridBlock, pred, label, sampleWeight)
}

// SoftmaxCELossOptions are SoftmaxCrossEntropyLoss's options. The zero
// value is Gluon's default: class axis -1, sparse labels, pred as
// unnormalised scores, weight 1.
type SoftmaxCELossOptions struct {
	// Axis is the class axis; 0 means the default, -1 (the batch axis is
	// not a class axis).
	Axis int
	// DenseLabel takes labels as distributions of pred's shape rather than
	// class indices (Gluon's sparse_label=False).
	DenseLabel bool
	// FromLogits takes pred as log-probabilities already (log_softmax is
	// not applied).
	FromLogits bool
	Weight     float64 // 0 means 1
	BatchAxis  int
}

// SoftmaxCrossEntropyLoss is the cross-entropy of softmax(pred) against
// the labels: -log softmax(pred)[label] for class indices, or
// -Σ label·log softmax(pred) for distributions.
type SoftmaxCrossEntropyLoss struct {
	nn.HybridBlock
	Axis        int
	SparseLabel bool
	FromLogits  bool
	Weight      float64
	BatchAxis   int
}

// NewSoftmaxCrossEntropyLoss makes a softmax cross-entropy loss.
func NewSoftmaxCrossEntropyLoss(opts ...SoftmaxCELossOptions) *SoftmaxCrossEntropyLoss {
	o := nn.OneOption("loss.NewSoftmaxCrossEntropyLoss", opts)
	l := &SoftmaxCrossEntropyLoss{Axis: o.Axis, SparseLabel: !o.DenseLabel, FromLogits: o.FromLogits,
		Weight: Options{Weight: o.Weight}.weight(), BatchAxis: o.BatchAxis}
	if l.Axis == 0 {
		l.Axis = -1
	}
	l.BindN(l)
	return l
}

// HybridForwardN computes the loss of pred against label.
func (l *SoftmaxCrossEntropyLoss) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	pred, label, sw := lossInputs(l.Name(), xs)
	if !l.FromLogits {
		pred = F.LogSoftmax(pred, ops.Axis(l.Axis))
	}
	var loss ops.Tensor
	if l.SparseLabel {
		// Labels (N,) or, keeping the class axis, (N, 1); the loss keeps
		// the class axis either way, so that sample weights broadcast.
		if len(label.Shape()) == len(pred.Shape()) {
			loss = F.Negative(F.Pick(pred, label, ops.Axis(l.Axis), ops.Keepdims()))
		} else {
			loss = F.ExpandDims(F.Negative(F.Pick(pred, label, ops.Axis(l.Axis))), l.Axis)
		}
	} else {
		loss = F.Negative(F.Sum(F.Mul(pred, F.ReshapeLike(label, pred)), ops.Axis(l.Axis), ops.Keepdims()))
	}
	return []ops.Tensor{finishLoss(F, loss, sw, l.Weight, l.BatchAxis)}
}

// Loss returns the per-sample loss.
func (l *SoftmaxCrossEntropyLoss) Loss(pred, label ops.Tensor, sampleWeight ...ops.Tensor) ops.Tensor {
	return runLoss(&l.HybridBlock, pred, label, sampleWeight)
}

// SigmoidBCELossOptions are SigmoidBinaryCrossEntropyLoss's options.
type SigmoidBCELossOptions struct {
	// FromSigmoid takes pred as probabilities already; otherwise pred are
	// logits and the numerically stable form is used.
	FromSigmoid bool
	// PosWeight, when set, scales the loss of positive labels (broadcast
	// against the label, e.g. one weight per class).
	PosWeight *eager.NDArray
	Weight    float64 // 0 means 1
	BatchAxis int
}

// SigmoidBinaryCrossEntropyLoss is the binary cross-entropy of
// sigmoid(pred) against labels in [0, 1]:
// -(label·log σ(pred) + (1-label)·log(1-σ(pred))).
type SigmoidBinaryCrossEntropyLoss struct {
	nn.HybridBlock
	FromSigmoid bool
	// PosWeight is a constant parameter holding the positive weight, or nil.
	PosWeight *nn.Parameter
	Weight    float64
	BatchAxis int
}

// NewSigmoidBinaryCrossEntropyLoss makes a sigmoid binary cross-entropy loss.
func NewSigmoidBinaryCrossEntropyLoss(opts ...SigmoidBCELossOptions) *SigmoidBinaryCrossEntropyLoss {
	o := nn.OneOption("loss.NewSigmoidBinaryCrossEntropyLoss", opts)
	l := &SigmoidBinaryCrossEntropyLoss{FromSigmoid: o.FromSigmoid, Weight: Options{Weight: o.Weight}.weight(), BatchAxis: o.BatchAxis}
	if o.PosWeight != nil {
		l.PosWeight = nn.NewConstant("pos_weight", o.PosWeight)
	}
	l.BindN(l)
	return l
}

// HybridForwardN computes the loss of pred against label.
func (l *SigmoidBinaryCrossEntropyLoss) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	pred, label, sw := lossInputs(l.Name(), xs)
	label = F.ReshapeLike(label, pred)
	var posWeight ops.Tensor
	if l.PosWeight != nil {
		posWeight = nn.Param(F, l.PosWeight)
	}
	var loss ops.Tensor
	switch {
	case !l.FromSigmoid && posWeight == nil:
		// max(x, 0) - x·z + log(1 + exp(-|x|))
		loss = F.Add(F.Sub(F.Relu(pred), F.Mul(pred, label)), F.Activation(F.Negative(F.Abs(pred)), "softrelu"))
	case !l.FromSigmoid:
		// x - x·z + (1 + (w-1)·z)·(log(1 + exp(-|x|)) + max(-x, 0))
		logWeight := F.PlusScalar(F.Mul(F.MinusScalar(posWeight, 1), label), 1)
		soft := F.Add(F.Activation(F.Negative(F.Abs(pred)), "softrelu"), F.Relu(F.Negative(pred)))
		loss = F.Add(F.Sub(pred, F.Mul(pred, label)), F.Mul(logWeight, soft))
	default:
		const eps = 1e-12
		pos := F.Mul(F.Log(F.PlusScalar(pred, eps)), label)
		if posWeight != nil {
			pos = F.Mul(pos, posWeight)
		}
		neg := F.Mul(F.Log(F.PlusScalar(F.RminusScalar(pred, 1), eps)), F.RminusScalar(label, 1))
		loss = F.Negative(F.Add(pos, neg))
	}
	return []ops.Tensor{finishLoss(F, loss, sw, l.Weight, l.BatchAxis)}
}

// Loss returns the per-sample loss.
func (l *SigmoidBinaryCrossEntropyLoss) Loss(pred, label ops.Tensor, sampleWeight ...ops.Tensor) ops.Tensor {
	return runLoss(&l.HybridBlock, pred, label, sampleWeight)
}

// HuberLossOptions are HuberLoss's options.
type HuberLossOptions struct {
	Rho       float64 // the threshold between the quadratic and linear parts; 0 means 1
	Weight    float64 // 0 means 1
	BatchAxis int
}

// HuberLoss is the smoothed L1 loss: with d = |pred - label|, d²/(2ρ) when
// d ≤ ρ, else d - ρ/2.
type HuberLoss struct {
	nn.HybridBlock
	Rho       float64
	Weight    float64
	BatchAxis int
}

// NewHuberLoss makes a Huber loss. The label is reshaped to pred's shape.
func NewHuberLoss(opts ...HuberLossOptions) *HuberLoss {
	o := nn.OneOption("loss.NewHuberLoss", opts)
	l := &HuberLoss{Rho: o.Rho, Weight: Options{Weight: o.Weight}.weight(), BatchAxis: o.BatchAxis}
	if l.Rho == 0 {
		l.Rho = 1
	}
	l.BindN(l)
	return l
}

// HybridForwardN computes the loss of pred against label.
func (l *HuberLoss) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	pred, label, sw := lossInputs(l.Name(), xs)
	d := F.Abs(F.Sub(F.ReshapeLike(label, pred), pred))
	loss := F.Where(F.GreaterScalar(d, l.Rho), F.MinusScalar(d, 0.5*l.Rho), F.MulScalar(F.Square(d), 0.5/l.Rho))
	return []ops.Tensor{finishLoss(F, loss, sw, l.Weight, l.BatchAxis)}
}

// Loss returns the per-sample loss.
func (l *HuberLoss) Loss(pred, label ops.Tensor, sampleWeight ...ops.Tensor) ops.Tensor {
	return runLoss(&l.HybridBlock, pred, label, sampleWeight)
}

// KLDivLossOptions are KLDivLoss's options. The zero value is Gluon's
// default: pred are log-probabilities, along the last axis.
type KLDivLossOptions struct {
	// NotFromLogits takes pred as unnormalised scores, to which
	// log_softmax is applied first (Gluon's from_logits=False).
	NotFromLogits bool
	// Axis is the axis of log_softmax; 0 means the default, -1.
	Axis      int
	Weight    float64 // 0 means 1
	BatchAxis int
}

// KLDivLoss is the Kullback-Leibler divergence of the label distribution
// from pred: label·(log label - pred), with pred log-probabilities.
type KLDivLoss struct {
	nn.HybridBlock
	FromLogits bool
	Axis       int
	Weight     float64
	BatchAxis  int
}

// NewKLDivLoss makes a KL-divergence loss.
func NewKLDivLoss(opts ...KLDivLossOptions) *KLDivLoss {
	o := nn.OneOption("loss.NewKLDivLoss", opts)
	l := &KLDivLoss{FromLogits: !o.NotFromLogits, Axis: o.Axis, Weight: Options{Weight: o.Weight}.weight(), BatchAxis: o.BatchAxis}
	if l.Axis == 0 {
		l.Axis = -1
	}
	l.BindN(l)
	return l
}

// HybridForwardN computes the loss of pred against label.
func (l *KLDivLoss) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	pred, label, sw := lossInputs(l.Name(), xs)
	if !l.FromLogits {
		pred = F.LogSoftmax(pred, ops.Axis(l.Axis))
	}
	loss := F.Mul(label, F.Sub(F.Log(F.PlusScalar(label, 1e-12)), pred))
	return []ops.Tensor{finishLoss(F, loss, sw, l.Weight, l.BatchAxis)}
}

// Loss returns the per-sample loss.
func (l *KLDivLoss) Loss(pred, label ops.Tensor, sampleWeight ...ops.Tensor) ops.Tensor {
	return runLoss(&l.HybridBlock, pred, label, sampleWeight)
}
