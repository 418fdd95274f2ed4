package nn

import (
	"fmt"

	"github.com/hybridgo/hybridgo/ops"
)

// Dropout zeroes each element with probability Rate and scales the others
// by 1/(1-Rate) in training mode (eager.Record or eager.TrainMode); in
// prediction mode it passes the data through unchanged.
type Dropout struct {
	HybridBlock
	Rate float64
	Axes []int // axes along which one mask value is shared (variational dropout)
}

// DropoutOptions are Dropout's options.
type DropoutOptions struct {
	Axes []int // share one mask value along these axes; default none
}

// NewDropout makes a dropout layer with rate in [0, 1].
func NewDropout(rate float64, opts ...DropoutOptions) *Dropout {
	o := OneOption("nn.NewDropout", opts)
	if rate < 0 || rate > 1 {
		panic(fmt.Errorf("nn.NewDropout: rate=%v is not in [0, 1]", rate))
	}
	d := &Dropout{Rate: rate, Axes: o.Axes}
	d.Bind(d)
	return d
}

// HybridForward drops elements of x (in training mode).
func (d *Dropout) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	nameOutput(F)
	if d.Rate == 0 {
		return F.Identity(x)
	}
	var attrs []ops.Attr
	if len(d.Axes) > 0 {
		attrs = append(attrs, ops.Attr{Name: "axes", Value: d.Axes})
	}
	return F.Dropout(x, d.Rate, attrs...)
}

// Flatten reshapes (N, d1, d2, …) to (N, d1*d2*…).
type Flatten struct{ HybridBlock }

// NewFlatten makes a flattening layer.
func NewFlatten() *Flatten {
	f := &Flatten{}
	f.Bind(f)
	return f
}

// HybridForward flattens x. Its node is named as Gluon's is, after the op
// ("flatten0_flatten0"), not "fwd".
func (f *Flatten) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return F.Flatten(x)
}

// EmbeddingOptions are Embedding's options.
type EmbeddingOptions struct {
	DType      ops.DType // the weight's dtype: float32 (the zero value) or float64
	WeightInit Initializer
}

// Embedding maps integer indices to rows of a learned weight of shape
// (input_dim, output_dim): data of shape S gives S + (output_dim,).
// Indices are clipped into [0, input_dim-1], as in MXNet.
type Embedding struct {
	HybridBlock
	Weight              *Parameter
	InputDim, OutputDim int
	DType               ops.DType
}

// NewEmbedding makes an embedding of inputDim rows of outputDim values.
func NewEmbedding(inputDim, outputDim int, opts ...EmbeddingOptions) *Embedding {
	o := OneOption("nn.NewEmbedding", opts)
	checkPositive("nn.NewEmbedding", "inputDim", inputDim)
	checkPositive("nn.NewEmbedding", "outputDim", outputDim)
	checkFloat("nn.NewEmbedding", o.DType)
	e := &Embedding{InputDim: inputDim, OutputDim: outputDim, DType: o.DType}
	e.Weight = NewParameter("weight", ops.Shape{inputDim, outputDim})
	e.Weight.dtype, e.Weight.Init = o.DType, o.WeightInit
	e.Bind(e)
	return e
}

// HybridForward looks up the rows of the indices in x.
func (e *Embedding) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	w := Param(F, e.Weight)
	nameOutput(F)
	return F.Embedding(x, w, e.InputDim, e.OutputDim, ops.WithDType(e.DType))
}

// HybridLambda wraps a function written with F as a hybrid block, so it
// can sit in a HybridSequential and be hybridized:
//
//	nn.NewHybridLambda(func(F ops.F, x ops.Tensor) ops.Tensor { return F.LeakyReLU(x, "leaky", ops.Attr{Name: "slope", Value: 0.1}) })
type HybridLambda struct {
	HybridBlock
	Fn func(F ops.F, x ops.Tensor) ops.Tensor
}

// NewHybridLambda makes a block that runs fn; it is named hybridlambda0, ….
func NewHybridLambda(fn func(F ops.F, x ops.Tensor) ops.Tensor) *HybridLambda {
	if fn == nil {
		panic(fmt.Errorf("nn.NewHybridLambda: the function is nil"))
	}
	l := &HybridLambda{Fn: fn}
	l.Bind(l, "hybridlambda")
	return l
}

// HybridForward runs the function.
func (l *HybridLambda) HybridForward(F ops.F, x ops.Tensor) ops.Tensor { return l.Fn(F, x) }
