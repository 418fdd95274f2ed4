package ops

// SVMOutput: an output layer whose backward is the hinge loss's gradient
// (L2-SVM, or L1-SVM with use_linear) against class labels, as in MXNet;
// the forward is the identity and the incoming gradient is not read.

// SVMOutputAttrs are the attributes of SVMOutput.
type SVMOutputAttrs struct {
	Margin                    float64 `attr:"margin" default:"1" doc:"the margin of the hinge"`
	RegularizationCoefficient float64 `attr:"regularization_coefficient" default:"1" doc:"scales the gradient"`
	UseLinear                 bool    `attr:"use_linear" default:"False" doc:"L1-SVM (the hinge's gradient) rather than L2-SVM (the squared hinge's)"`
}

var opSVMOutput *Op

func init() {
	opSVMOutput = Register(Def[SVMOutputAttrs]{
		Name: "SVMOutput", Kind: "loss",
		Doc: "Marks data (..., classes) as the scores of a support vector machine against label (...), the classes: " +
			"the forward is the identity, and the gradient sent to data is the one-vs-rest hinge loss's with margin, " +
			"times regularization_coefficient — for the label's class -2·(margin - x) where x < margin, for the others " +
			"2·(margin + x) where x > -margin (L2-SVM), or -1 and 1 there (use_linear, L1-SVM) — whatever the incoming " +
			"gradient. label gets none.",
		Inputs: []string{"data", "label"},
		Shape: func(_ *SVMOutputAttrs, in []Shape) ([]Shape, error) {
			d := in[0]
			if len(d) < 2 {
				return nil, Errorf("data %v must have a class axis after at least one other", d)
			}
			want := d[:len(d)-1].Clone()
			if len(in[1]) == 0 {
				in[1] = want
			} else if m, ok := mergeShapes(in[1], want); !ok {
				return nil, Errorf("label %v must be data's shape without its last axis, %v", in[1], want)
			} else {
				in[1] = m
			}
			return []Shape{d.Clone()}, nil
		},
		DType: func(_ *SVMOutputAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, _ *SVMOutputAttrs, in, out []Value) error {
			CopyData(out[0].Data, in[0].Data)
			return nil
		},
		InPlace: true,
		Grad: func(f F, a *SVMOutputAttrs, in, _, _ []Tensor) []Tensor {
			x, label := in[0], in[1]
			s := x.Shape()
			onehot := f.OneHot(label, s[len(s)-1], WithDType(x.DType()))
			rest := f.RminusScalar(onehot, 1)
			var own, others Tensor
			if a.UseLinear {
				own = f.LesserScalar(x, a.Margin)
				others = f.GreaterScalar(x, -a.Margin)
			} else {
				own = f.Mul(f.LesserScalar(x, a.Margin), f.MulScalar(f.RminusScalar(x, a.Margin), 2))
				others = f.Mul(f.GreaterScalar(x, -a.Margin), f.MulScalar(f.PlusScalar(x, a.Margin), 2))
			}
			g := f.Sub(f.Mul(rest, others), f.Mul(onehot, own))
			return []Tensor{f.MulScalar(g, a.RegularizationCoefficient), nil}
		},
		Samples: []Sample{
			{Inputs: []Shape{{4, 3}, {4}}, Ints: map[int]int{1: 3}, Low: -2, High: 2, NoGradCheck: true},
			{Attrs: map[string]string{"use_linear": "True", "margin": "0.5", "regularization_coefficient": "2"},
				Inputs: []Shape{{2, 3, 4}, {2, 3}}, Ints: map[int]int{1: 4}, NoGradCheck: true},
		},
	})
}

// SVMOutput marks x (..., classes) as SVM scores against label (...): the
// identity forward, and the hinge loss's gradient backward (attrs: margin,
// regularization_coefficient, use_linear).
func (f F) SVMOutput(x, label Tensor, attrs ...Attr) Tensor {
	return f.call1(opSVMOutput, attrs, x, label)
}
