package ops

// Fused layer ops: Convolution or FullyConnected followed by relu, in one
// kernel that applies the bias and the rectifier to each tile of the
// product while it is in cache. They are made with Define and never
// registered: the graph executor swaps them in for a layer and its relu
// (see graph.FuseActivation), and saved graphs keep MXNet's two ops.

var opConvRelu, opFCRelu *Op

func init() {
	conv := func(a *ConvolutionAttrs) []string {
		if a.NoBias {
			return []string{"data", "weight"}
		}
		return []string{"data", "weight", "bias"}
	}
	opConvRelu = Define(Def[ConvolutionAttrs]{
		Name: "_fused_Convolution_relu",
		Doc: "Convolution followed by relu, max(x, 0), in one pass (made by graph fusion, not registered; no gradient). " +
			"The attributes are Convolution's.",
		InputNames: conv,
		Check:      func(a *ConvolutionAttrs) error { return a.win().check(a.NumFilter, a.NumGroup, a.Layout) },
		Shape: func(a *ConvolutionAttrs, in []Shape) ([]Shape, error) {
			out, err := convShape(a, in)
			return []Shape{out}, err
		},
		Kernel: func(_ *Env, a *ConvolutionAttrs, in, out []Value) error {
			if err := requireFloat(in...); err != nil {
				return err
			}
			var bias Value
			if !a.NoBias {
				bias = in[2]
			}
			convKernel(a.plan(in[0].Shape), in[0], in[1], bias, out[0], true)
			return nil
		},
	})
	opFCRelu = Define(Def[FullyConnectedAttrs]{
		Name: "_fused_FullyConnected_relu",
		Doc: "FullyConnected followed by relu, max(x, 0), in one pass (made by graph fusion, not registered; no gradient). " +
			"The attributes are FullyConnected's.",
		InputNames: func(a *FullyConnectedAttrs) []string { return opFullyConnected.InputNames(a) },
		Check: func(a *FullyConnectedAttrs) error {
			if a.NumHidden <= 0 {
				return Errorf("num_hidden must be positive, got %d", a.NumHidden)
			}
			return nil
		},
		Shape:  fullyConnectedShape,
		Kernel: func(_ *Env, a *FullyConnectedAttrs, in, out []Value) error { return fcKernel(a, in, out[0], true) },
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

// IsRelu reports whether an op with these attributes is max(x, 0): the
// relu op, or Activation with act_type relu.
func IsRelu(op *Op, attrs Attrs) bool {
	switch op {
	case opRelu:
		return true
	case opActivation:
		a, ok := attrs.(*ActivationAttrs)
		return ok && a.ActType == "relu"
	}
	return false
}
