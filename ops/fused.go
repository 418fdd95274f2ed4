package ops

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
		Kernel: func(_ *Env, a *ConvolutionAttrs, in, out []Value) error {
			return convolutionKernel(a, in, out[0], true)
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
	}
	return nil
}
