package ops

// Output layers whose backward is a loss's gradient rather than the
// derivative of their forward, as in MXNet: MakeLoss, whose forward is the
// identity and whose gradient is grad_scale (normalised), and the
// regression outputs LinearRegressionOutput, LogisticRegressionOutput and
// MAERegressionOutput, whose gradients are those of the squared, logistic
// and absolute error against a label. None of them reads the incoming
// output gradient, so the samples skip the numeric check.

// MakeLossAttrs are the attributes of MakeLoss.
type MakeLossAttrs struct {
	GradScale     float64 `attr:"grad_scale" default:"1.0" doc:"the gradient sent to the data"`
	ValidThresh   float64 `attr:"valid_thresh" default:"0.0" doc:"normalization valid counts the data values above this"`
	Normalization string  `attr:"normalization" default:"null" enum:"null,batch,valid" doc:"divide the gradient by nothing, the batch size (axis 0), or the number of data values above valid_thresh (at least 1)"`
}

// RegressionOutputAttrs are the attributes of the regression outputs.
type RegressionOutputAttrs struct {
	GradScale float64 `attr:"grad_scale" default:"1.0" doc:"scales the gradient"`
}

var opMakeLoss, opLinearRegressionOutput, opLogisticRegressionOutput, opMAERegressionOutput *Op

func init() {
	opMakeLoss = Register(Def[MakeLossAttrs]{
		Name: "MakeLoss", Aliases: []string{"make_loss"}, Kind: "loss",
		Doc: "Marks data as a loss: the forward is the identity, and the gradient sent to data is grad_scale everywhere, " +
			"whatever the incoming gradient, divided by the batch size with normalization batch or by the number of " +
			"data values above valid_thresh (at least 1) with normalization valid.",
		Inputs: []string{"data"},
		Shape:  func(_ *MakeLossAttrs, in []Shape) ([]Shape, error) { return []Shape{in[0].Clone()}, nil },
		DType:  func(_ *MakeLossAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, _ *MakeLossAttrs, in, out []Value) error {
			CopyData(out[0].Data, in[0].Data)
			return nil
		},
		InPlace: true,
		Grad: func(f F, a *MakeLossAttrs, in, _, _ []Tensor) []Tensor {
			x := in[0]
			d := f.MulScalar(f.OnesLike(x), a.GradScale)
			switch a.Normalization {
			case "batch":
				if s := x.Shape(); len(s) > 0 && s[0] > 0 {
					d = f.DivScalar(d, float64(s[0]))
				}
			case "valid":
				valid := f.MaximumScalar(f.Sum(f.GreaterScalar(x, a.ValidThresh)), 1)
				d = f.Div(d, valid)
			}
			return []Tensor{d}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}}, NoGradCheck: true},
			{Attrs: map[string]string{"grad_scale": "0.5", "normalization": "batch"}, Inputs: []Shape{{4, 2}}, NoGradCheck: true},
			{Attrs: map[string]string{"normalization": "valid", "valid_thresh": "0.2"}, Inputs: []Shape{{3, 4}}, NoGradCheck: true},
		},
	})

	opLinearRegressionOutput = Register(regressionDef("LinearRegressionOutput",
		"The identity on data; the gradient sent to data is (data - label) * grad_scale / m, m the values per sample "+
			"(label size / batch size): the gradient of half the squared error. The incoming gradient is not read.",
		nil, func(f F, d Tensor) Tensor { return d }))
	opLogisticRegressionOutput = Register(regressionDef("LogisticRegressionOutput",
		"sigmoid(data); the gradient sent to data is (sigmoid(data) - label) * grad_scale / m, m the values per sample "+
			"(label size / batch size): the gradient of the logistic loss. The incoming gradient is not read.",
		sigmoid, func(f F, d Tensor) Tensor { return d }))
	opMAERegressionOutput = Register(regressionDef("MAERegressionOutput",
		"The identity on data; the gradient sent to data is sign(data - label) * grad_scale / m, m the values per sample "+
			"(label size / batch size), with -1 where data equals label, as in MXNet: the gradient of the absolute error. "+
			"The incoming gradient is not read.",
		nil, func(f F, d Tensor) Tensor { return f.MinusScalar(f.MulScalar(f.GreaterScalar(d, 0), 2), 1) }))
}

// regressionDef defines a regression output whose forward applies fwd
// (nil: the identity) and whose gradient is grad(out - label), scaled.
func regressionDef(name, doc string, fwd func(float64) float64, grad func(f F, d Tensor) Tensor) Def[RegressionOutputAttrs] {
	return Def[RegressionOutputAttrs]{
		Name: name, Kind: "loss", Doc: doc,
		Inputs: []string{"data", "label"},
		Shape: func(_ *RegressionOutputAttrs, in []Shape) ([]Shape, error) {
			d, l := in[0], in[1]
			switch {
			case len(l) == 0: // the label shape is not known yet
				if len(d) == 2 && d[1] == 1 {
					in[1] = Shape{d[0]}
				} else {
					in[1] = d.Clone()
				}
			case d.Known() && l.Known() && (len(d) == 0 || len(l) == 0 || l[0] != d[0] || l.Size() != d.Size()):
				return nil, Errorf("label %v does not match data %v: it needs the same batch size and number of values", l, d)
			}
			return []Shape{d.Clone()}, nil
		},
		DType: func(_ *RegressionOutputAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, _ *RegressionOutputAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			if fwd == nil {
				CopyData(out[0].Data, in[0].Data)
				return nil
			}
			return mapUnary(in[0], out[0], fwd)
		},
		Grad: func(f F, a *RegressionOutputAttrs, in, out, _ []Tensor) []Tensor {
			y, label := out[0], in[1]
			if label.DType() != y.DType() {
				label = f.Cast(label, y.DType())
			}
			d := grad(f, f.Sub(y, f.ReshapeLike(label, y)))
			m := 1.0
			if l := label.Shape(); len(l) > 0 && l[0] > 0 {
				m = float64(l.Size() / l[0])
			}
			if s := a.GradScale / m; s != 1 {
				d = f.MulScalar(d, s)
			}
			return []Tensor{d, nil}
		},
		Samples: []Sample{
			{Inputs: []Shape{{4, 3}, {4, 3}}, NoGradCheck: true},
			{Attrs: map[string]string{"grad_scale": "2"}, Inputs: []Shape{{5, 1}, {5}}, NoGradCheck: true},
			{Inputs: []Shape{{2, 3, 2}, {2, 6}}, NoGradCheck: true},
		},
	}
}

// MakeLoss marks x as a loss: the identity forward, and a gradient of
// grad_scale (1 unless given) whatever the incoming gradient.
func (f F) MakeLoss(x Tensor, attrs ...Attr) Tensor { return f.call1(opMakeLoss, attrs, x) }

// LinearRegressionOutput is the identity on data, with the gradient of
// the squared error against label.
func (f F) LinearRegressionOutput(data, label Tensor, attrs ...Attr) Tensor {
	return f.call1(opLinearRegressionOutput, attrs, data, label)
}

// LogisticRegressionOutput is sigmoid(data), with the gradient of the
// logistic loss against label.
func (f F) LogisticRegressionOutput(data, label Tensor, attrs ...Attr) Tensor {
	return f.call1(opLogisticRegressionOutput, attrs, data, label)
}

// MAERegressionOutput is the identity on data, with the gradient of the
// absolute error against label.
func (f F) MAERegressionOutput(data, label Tensor, attrs ...Attr) Tensor {
	return f.call1(opMAERegressionOutput, attrs, data, label)
}
