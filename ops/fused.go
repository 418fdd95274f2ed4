package ops

import (
	"github.com/hybridgo/hybridgo/accel"
)

// Fused layer ops: Convolution or FullyConnected followed by relu, in one
// kernel that applies the bias and the rectifier to each tile of the
// product while it is in cache. They are made with Define and never
// registered: the graph executor swaps them in for a layer and its relu
// (see graph.FuseActivation), and saved graphs keep MXNet's two ops.

var opConvRelu, opFCRelu *Op

func init() {
	// Each fused op is its layer's op but for the relu in its kernel:
	// the same attributes, inputs, checks and shapes.
	opConvRelu = Define(Def[ConvolutionAttrs]{
		Name: "_fused_Convolution_relu",
		Kind: "fused",
		Doc: "Convolution followed by relu, max(x, 0), in one pass (made by graph fusion, not registered; no gradient). " +
			"The attributes are Convolution's.",
		InputNames: func(a *ConvolutionAttrs) []string { return opConvolution.InputNames(a) },
		Check:      func(a *ConvolutionAttrs) error { return opConvolution.check(a) },
		Shape:      func(a *ConvolutionAttrs, in []Shape) ([]Shape, error) { return opConvolution.shape(a, in) },
		Kernel: func(env *Env, a *ConvolutionAttrs, in, out []Value) error {
			return convolutionKernel(a, in, out[0], true, outsideTraining(env))
		},
	})
	opFCRelu = Define(Def[FullyConnectedAttrs]{
		Name: "_fused_FullyConnected_relu",
		Kind: "fused",
		Doc: "FullyConnected followed by relu, max(x, 0), in one pass (made by graph fusion, not registered; no gradient). " +
			"The attributes are FullyConnected's.",
		InputNames: func(a *FullyConnectedAttrs) []string { return opFullyConnected.InputNames(a) },
		Check:      func(a *FullyConnectedAttrs) error { return opFullyConnected.check(a) },
		Shape:      fullyConnectedShape,
		Kernel:     func(_ *Env, a *FullyConnectedAttrs, in, out []Value) error { return fcKernel(a, in, out[0], true) },
	})
}

// WithRelu returns the op that computes op followed by relu in one kernel,
// taking op's attributes and inputs, for Convolution and FullyConnected;
// it returns nil for any other op. The returned op is not registered and
// has no gradient rule, so it belongs in graphs that are already
// differentiated.
func WithRelu(op *Op) *Op {
	switch op {
	case opConvolution:
		return opConvRelu
	case opFullyConnected:
		return opFCRelu
	case opsConvBN[0]:
		return opsConvBN[convBNIndex(true, false)]
	case opsConvBN[convBNIndex(false, true)]:
		return opsConvBN[convBNIndex(true, true)]
	}
	return nil
}

// ConvBNAttrs are the attributes of the fused convolution with an
// inference BatchNorm (see WithBatchNorm): the Convolution's, and the
// BatchNorm's eps and fix_gamma.
type ConvBNAttrs struct {
	Conv     ConvolutionAttrs // the convolution's attributes
	Eps      float64          `attr:"eps" default:"0.001" doc:"the BatchNorm's eps: added to the variance before the square root"`
	FixGamma bool             `attr:"fix_gamma" default:"True" doc:"the BatchNorm's fix_gamma: treat gamma as 1"`
	Cap      OptFloat         `attr:"cap" default:"None" doc:"with relu, values above it become it: clip(x, 0, cap), relu6 for 6"`
	Nodes    string           `attr:"nodes" default:"" doc:"the names of the nodes folded into this one, in order (for drawings)"`
}

// The convolutions with an inference BatchNorm, indexed by convBNIndex:
// plain, then relu, then a residual sum, then a sum and relu.
var opsConvBN [4]*Op

func convBNIndex(relu, residual bool) int {
	i := 0
	if relu {
		i |= 1
	}
	if residual {
		i |= 2
	}
	return i
}

func init() {
	for i := range opsConvBN {
		relu, residual := i&1 != 0, i&2 != 0
		name, what := "_fused_Convolution_BatchNorm", "Convolution followed by BatchNorm with its running statistics"
		if residual {
			name += "_add"
			what += ", plus a residual input of the output's shape"
		}
		if relu {
			name += "_relu"
			what += ", then relu, max(x, 0)"
		}
		opsConvBN[i] = Define(Def[ConvBNAttrs]{
			Name: name,
			Kind: "fused",
			Doc: what + ", in one pass: the normalisation is a scale and shift per channel applied to each tile of the product " +
				"(made by graph folding for inference, not registered; no gradient). The inputs are the Convolution's, then the BatchNorm's parameters.",
			InputNames: func(a *ConvBNAttrs) []string {
				names := append(opConvolution.InputNames(&a.Conv), "gamma", "beta", "moving_mean", "moving_var")
				if residual {
					names = append(names, "residual")
				}
				return names
			},
			Check: func(a *ConvBNAttrs) error { return opConvolution.check(&a.Conv) },
			Shape: func(a *ConvBNAttrs, in []Shape) ([]Shape, error) {
				return convBNShape(a, in, residual)
			},
			Kernel: func(_ *Env, a *ConvBNAttrs, in, out []Value) error {
				return convBNKernel(a, in, out[0], relu, residual)
			},
		})
	}
}

// WithBatchNorm returns the op that computes a Convolution followed by a
// BatchNorm of its channels with the running statistics (the BatchNorm of
// inference) in one kernel, taking ConvBNAttrs and the inputs of both; nil
// for any other op than Convolution. The returned op is not registered
// and has no gradient rule: it belongs in graphs that run outside
// training only.
func WithBatchNorm(op *Op) *Op {
	if op == opConvolution {
		return opsConvBN[0]
	}
	return nil
}

// WithResidual returns the op that adds a residual input to the output
// of op, a convolution with an inference BatchNorm (WithBatchNorm's), in
// the same kernel; nil for any other op.
func WithResidual(op *Op) *Op {
	if op == opsConvBN[0] {
		return opsConvBN[convBNIndex(false, true)]
	}
	return nil
}

// CappedRelu reports whether op with attrs is clip(x, 0, cap) for a cap
// above 0 (relu6 for 6), and returns the cap.
func CappedRelu(op *Op, attrs Attrs) (float64, bool) {
	a, ok := attrs.(*ClipAttrs)
	if op != opClip || !ok || a.AMin != 0 || !(a.AMax > 0) {
		return 0, false
	}
	return a.AMax, true
}

// WithCappedRelu returns the op and attributes that compute op (with
// attrs) followed by clip(x, 0, cap) in one kernel, for the convolutions
// with an inference BatchNorm (WithBatchNorm's and WithResidual's); nil
// for any other op.
func WithCappedRelu(op *Op, attrs Attrs, cap float64) (*Op, Attrs) {
	a, ok := attrs.(*ConvBNAttrs)
	fused := WithRelu(op)
	if !ok || fused == nil || a.Cap.Valid {
		return nil, nil
	}
	capped := *a
	capped.Cap = OptFloat{Value: cap, Valid: true}
	return fused, &capped
}

// IsElemwiseAdd reports whether op adds its two inputs element by
// element: elemwise_add, or broadcast_add (whose inputs the caller must
// check to have one shape).
func IsElemwiseAdd(op *Op) bool { return op == opElemwiseAdd || op == opBroadcastAdd }

// convBNShape is the shape rule of the fused convolution with BatchNorm:
// the convolution's output, with per-channel parameters of num_filter and
// a residual of the output's shape.
func convBNShape(a *ConvBNAttrs, in []Shape, residual bool) ([]Shape, error) {
	nc := len(opConvolution.InputNames(&a.Conv))
	out, err := convShape(&a.Conv, in[:nc])
	if err != nil {
		return nil, err
	}
	for i, name := range []string{"gamma", "beta", "moving_mean", "moving_var"} {
		if fillParam(&in[nc+i], Shape{a.Conv.NumFilter}) >= 0 {
			return nil, Errorf("%s has shape %v; the %d filters need (%d,)", name, in[nc+i], a.Conv.NumFilter, a.Conv.NumFilter)
		}
	}
	if residual && fillParam(&in[nc+4], out) >= 0 {
		return nil, Errorf("residual has shape %v; the output's is %v", in[nc+4], out)
	}
	return []Shape{out}, nil
}

// convBNKernel computes the fused convolution with BatchNorm: per channel
// f, scale = gamma/sqrt(moving_var+eps) and shift = beta - moving_mean*scale
// (plus the convolution's bias times scale) go to the product's epilogue
// with the residual and relu.
func convBNKernel(a *ConvBNAttrs, in []Value, out Value, relu, residual bool) error {
	if err := requireFloat(in...); err != nil {
		return err
	}
	p := a.Conv.plan(in[0].Shape)
	switch x := in[0].Data.(type) {
	case []float32:
		convBN(a, p, x, in, out.Data.([]float32), relu, residual)
	case []float64:
		convBN(a, p, x, in, out.Data.([]float64), relu, residual)
	}
	return nil
}

func convBN[T accel.Float](a *ConvBNAttrs, p convPlan, x []T, in []Value, y []T, relu, residual bool) {
	nc := 2
	var bias []T
	if !a.Conv.NoBias {
		bias = in[2].Data.([]T)
		nc = 3
	}
	gamma, beta, mean, variance := in[nc].Data.([]T), in[nc+1].Data.([]T), in[nc+2].Data.([]T), in[nc+3].Data.([]T)
	filters := a.Conv.NumFilter
	sp := getScratch[T](2 * filters)
	defer putScratch(sp)
	scale, shift := (*sp)[:filters], (*sp)[filters:2*filters]
	if a.FixGamma {
		gamma = nil
	}
	accel.BatchNormFold(scale, shift, gamma, beta[:filters], mean[:filters], variance[:filters], bias, a.Eps)
	post := convPost[T]{scale: scale, bias: shift, relu: relu, capped: relu && a.Cap.Valid, cap: T(a.Cap.Value), cache: true}
	if residual {
		post.residual = in[nc+4].Data.([]T)
	}
	convForward(p, x, in[1].Data.([]T), y, post)
}
