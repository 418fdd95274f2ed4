package ops

import (
	"math"
	"strings"

	"github.com/hybridgo/hybridgo/accel"
)

// The softmax family: softmax, softmin and log_softmax along an axis, the
// SoftmaxOutput loss layer, softmax_cross_entropy, and smooth_l1.
// Kernels subtract the maximum before exponentiating, so large inputs do
// not overflow.

// SoftmaxAttrs are the attributes of softmax and log_softmax.
type SoftmaxAttrs struct {
	Axis        int      `attr:"axis" default:"-1" doc:"the axis along which the values sum to 1"`
	Temperature OptFloat `attr:"temperature" default:"None" doc:"divide the input by this first; None means 1"`
	DType       DType    `attr:"dtype" default:"None" doc:"the dtype of the result; None keeps the input's"`
	UseLength   bool     `attr:"use_length" default:"False" doc:"mask by a length input; not supported"`
}

func (a *SoftmaxAttrs) temperature() float64 {
	if a.Temperature.Valid {
		return a.Temperature.Value
	}
	return 1
}

// SoftmaxOutputAttrs are the attributes of SoftmaxOutput.
type SoftmaxOutputAttrs struct {
	GradScale     float64 `attr:"grad_scale" default:"1.0" doc:"scales the gradient"`
	IgnoreLabel   float64 `attr:"ignore_label" default:"-1.0" doc:"with use_ignore, rows with this label get no gradient"`
	MultiOutput   bool    `attr:"multi_output" default:"False" doc:"softmax along axis 1 of (n, k, d1, ...) data, one label per position"`
	UseIgnore     bool    `attr:"use_ignore" default:"False" doc:"give rows labelled ignore_label no gradient"`
	PreserveShape bool    `attr:"preserve_shape" default:"False" doc:"softmax along the last axis instead of over all dims after the first"`
	Normalization string  `attr:"normalization" default:"null" enum:"null,batch,valid" doc:"divide the gradient by nothing, the number of labels, or the number of labels not ignored"`
	OutGrad       bool    `attr:"out_grad" default:"False" doc:"multiply the gradient by the incoming output gradient"`
	SmoothAlpha   float64 `attr:"smooth_alpha" default:"0.0" doc:"label smoothing: the true class gets 1-alpha, the others alpha/(k-1)"`
}

// SoftmaxActivationAttrs are the attributes of SoftmaxActivation.
type SoftmaxActivationAttrs struct {
	Mode string `attr:"mode" default:"instance" enum:"instance,channel" doc:"instance: softmax over all dims after the first; channel: along axis 1, at each position of each instance"`
}

// split returns the softmax's (outer, n, inner) for data of shape s.
func (a *SoftmaxActivationAttrs) split(s Shape) (outer, n, inner int, err error) {
	if a.Mode == "channel" {
		if len(s) < 3 {
			return 0, 0, 0, Errorf("mode=channel needs data with at least 3 dims, got %v", s)
		}
		outer, n, inner = axisSplit(s, 1)
		return outer, n, inner, nil
	}
	if len(s) < 1 {
		return 0, 0, 0, Errorf("data must have at least 1 dim")
	}
	return s[0], s[1:].Size(), 1, nil
}

// axes are the axes the softmax's values sum to 1 over.
func (a *SoftmaxActivationAttrs) axes(ndim int) Attr {
	if a.Mode == "channel" {
		return Axis(1)
	}
	axes := make([]int, ndim-1)
	for i := range axes {
		axes[i] = i + 1
	}
	return Axis(axes...)
}

var opSoftmaxActivation *Op

var opSoftmax, opSoftmin, opLogSoftmax, opSoftmaxOutput, opSoftmaxOutputBackward, opSoftmaxCE, opSoftmaxCEBackward, opSmoothL1 *Op

func init() {
	opSoftmin = Register(softmaxDef("softmin", false, true,
		"exp(-x) / sum(exp(-x)) along an axis (default the last), after dividing x by temperature: softmax of -x. use_length is not supported."))
	opSoftmax = Register(softmaxDef("softmax", false, false,
		"exp(x) / sum(exp(x)) along an axis (default the last), after dividing x by temperature. use_length is not supported."))
	opLogSoftmax = Register(softmaxDef("log_softmax", true, false,
		"log(softmax(x)) along an axis (default the last), computed as x - max - log(sum(exp(x - max))). use_length is not supported."))

	opSoftmaxActivation = Register(Def[SoftmaxActivationAttrs]{
		Name: "SoftmaxActivation", Kind: "softmax",
		Doc: "MXNet's older softmax layer: with mode=instance, a softmax over all dims after the first of each " +
			"instance; with mode=channel, along axis 1 at each position (data of at least 3 dims). The gradient is " +
			"the softmax's in both modes (MXNet's own backward sums over axis 1 only, which is the same for " +
			"2-D data and for mode=channel).",
		Inputs: []string{"data"},
		Shape: func(a *SoftmaxActivationAttrs, in []Shape) ([]Shape, error) {
			if _, _, _, err := a.split(in[0]); err != nil {
				return nil, err
			}
			return []Shape{in[0].Clone()}, nil
		},
		DType: func(_ *SoftmaxActivationAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *SoftmaxActivationAttrs, in, out []Value) error {
			outer, n, inner, err := a.split(in[0].Shape)
			if err != nil {
				return err
			}
			return softmaxKernel(in[0], out[0], outer, n, inner, 1, false)
		},
		Grad: func(f F, a *SoftmaxActivationAttrs, in, out, g []Tensor) []Tensor {
			y, gy := out[0], g[0]
			if len(y.Shape()) == 1 { // one instance of one value: the softmax is 1
				return []Tensor{f.ZerosLike(gy)}
			}
			return []Tensor{f.Mul(y, f.Sub(gy, f.Sum(f.Mul(gy, y), a.axes(len(y.Shape())), Keepdims())))}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 5}}, Low: -3, High: 3},
			{Inputs: []Shape{{2, 3, 2}}},
			{Attrs: map[string]string{"mode": "channel"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"mode": "channel"}, Inputs: []Shape{{1, 4, 2, 2}}},
		},
	})

	opSoftmaxOutput = Register(Def[SoftmaxOutputAttrs]{
		Name: "SoftmaxOutput", Kind: "loss", Aliases: []string{"Softmax"},
		Doc: "Softmax as the last layer of a classifier. The forward is a softmax over all dims after the first " +
			"(along axis 1 with multi_output, along the last axis with preserve_shape). The gradient is MXNet's: " +
			"(softmax - one_hot(label)) * grad_scale, normalised as normalization says, ignoring the incoming " +
			"gradient unless out_grad is set; the label gets none. A label with the data's shape holds class probabilities. " +
			"The label may have any numeric dtype; a label outside [0, classes) that is not ignored is an error in the backward.",
		Inputs: []string{"data", "label"},
		Check:  checkSoftmaxOutput,
		Shape: func(a *SoftmaxOutputAttrs, in []Shape) ([]Shape, error) {
			if err := a.labelShape(in); err != nil {
				return nil, err
			}
			return []Shape{in[0].Clone()}, nil
		},
		DType: func(_ *SoftmaxOutputAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *SoftmaxOutputAttrs, in, out []Value) error {
			outer, k, inner := a.layout(in[0].Shape)
			return softmaxKernel(in[0], out[0], outer, k, inner, 1, false)
		},
		// The rule is MXNet's, which is not the derivative of the forward
		// (the loss is implied), so the samples skip the numeric check.
		Grad: func(f F, a *SoftmaxOutputAttrs, in, out, g []Tensor) []Tensor {
			d := f.softmaxOutputBackward(a, out[0], in[1])
			if a.OutGrad {
				d = f.Mul(d, g[0])
			}
			return []Tensor{d, nil}
		},
		Samples: []Sample{
			{Inputs: []Shape{{4, 3}, {4}}, Ints: map[int]int{1: 3}, NoGradCheck: true},
			{Attrs: map[string]string{"grad_scale": "2", "normalization": "batch"}, Inputs: []Shape{{4, 3}, {4}}, Ints: map[int]int{1: 3}, NoGradCheck: true},
			{Attrs: map[string]string{"multi_output": "True"}, Inputs: []Shape{{2, 3, 4}, {2, 4}}, Ints: map[int]int{1: 3}, NoGradCheck: true},
			{Attrs: map[string]string{"preserve_shape": "True", "out_grad": "True"}, Inputs: []Shape{{2, 3, 5}, {2, 3}}, Ints: map[int]int{1: 5}, NoGradCheck: true},
			{Attrs: map[string]string{"use_ignore": "True", "ignore_label": "0", "normalization": "valid", "smooth_alpha": "0.1"}, Inputs: []Shape{{5, 4}, {5}}, Ints: map[int]int{1: 4}, NoGradCheck: true},
			{Inputs: []Shape{{3, 4}, {3, 4}}, Low: 0, High: 1, NoGradCheck: true},
		},
	})

	opSoftmaxOutputBackward = Register(Def[SoftmaxOutputAttrs]{
		Name:   "_backward_SoftmaxOutput",
		Kind:   "loss",
		Doc:    "The gradient SoftmaxOutput sends to its data, from its output and label, before any multiplication by the output gradient (out_grad).",
		Inputs: []string{"output", "label"},
		Check:  checkSoftmaxOutput,
		Shape: func(a *SoftmaxOutputAttrs, in []Shape) ([]Shape, error) {
			if err := a.labelShape(in); err != nil {
				return nil, err
			}
			return []Shape{in[0].Clone()}, nil
		},
		DType:  func(_ *SoftmaxOutputAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: softmaxOutputGrad,
		Samples: []Sample{
			{Inputs: []Shape{{4, 3}, {4}}, Ints: map[int]int{1: 3}},
			{Attrs: map[string]string{"multi_output": "True", "normalization": "batch"}, Inputs: []Shape{{2, 3, 2, 2}, {2, 2, 2}}, Ints: map[int]int{1: 3}},
			{Attrs: map[string]string{"use_ignore": "True", "ignore_label": "1", "normalization": "valid"}, Inputs: []Shape{{6, 3}, {6}}, Ints: map[int]int{1: 3}},
		},
	})

	opSoftmaxCE = Register(Def[NoAttrs]{
		Name: "softmax_cross_entropy",
		Kind: "loss",
		Doc: "The cross-entropy of softmax(data) with integer labels, summed over the batch: " +
			"sum_i -log(softmax(data[i])[label[i]]), of shape (1,). data is (batch, classes), label (batch,).",
		Inputs: []string{"data", "label"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			d, l := in[0], in[1]
			if len(d) != 2 {
				return nil, Errorf("data %v must be 2-D (batch, classes)", d)
			}
			if len(l) == 0 { // the label shape is not known yet
				in[1] = Shape{d[0]}
				l = in[1]
			}
			if len(l) != 1 {
				return nil, Errorf("label %v must be 1-D (batch,) to match data %v", l, d)
			}
			n, ok := mergeDim(d[0], l[0])
			if !ok {
				return nil, Errorf("label %v does not match data %v: batch sizes %d and %d differ", l, d, l[0], d[0])
			}
			d[0], l[0] = n, n
			return []Shape{{1}}, nil
		},
		DType: func(_ *NoAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			xs, labels := in[0].Float64s(), in[1].Float64s()
			n, k := in[0].Shape[0], in[0].Shape[1]
			total := 0.0
			for i := 0; i < n; i++ {
				row := xs[i*k : (i+1)*k]
				c, err := classIndex(labels[i], k, i)
				if err != nil {
					return err
				}
				m := math.Inf(-1)
				for _, x := range row {
					m = max(m, x)
				}
				s := 0.0
				for _, x := range row {
					s += math.Exp(x - m)
				}
				total += m + math.Log(s) - row[c]
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, []float64{total}))
			return nil
		},
		Grad: func(f F, _ *NoAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.Mul(f.softmaxCEBackward(f.Softmax(in[0]), in[1]), g[0]), nil}
		},
		Samples: []Sample{
			{Inputs: []Shape{{4, 3}, {4}}, Ints: map[int]int{1: 3}},
			{Inputs: []Shape{{2, 5}, {2}}, Ints: map[int]int{1: 5}, Low: -3, High: 3},
		},
	})

	opSoftmaxCEBackward = Register(Def[NoAttrs]{
		Name:   "_backward_softmax_cross_entropy",
		Kind:   "loss",
		Doc:    "prob - one_hot(label): the gradient of softmax_cross_entropy given the softmax of its data (prob, (batch, classes)) and its labels (batch,).",
		Inputs: []string{"prob", "label"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			d, l := in[0], in[1]
			if len(d) != 2 || len(l) != 1 {
				return nil, Errorf("prob %v must be 2-D and label %v 1-D", d, l)
			}
			n, ok := mergeDim(d[0], l[0])
			if !ok {
				return nil, Errorf("label %v does not match prob %v: batch sizes %d and %d differ", l, d, l[0], d[0])
			}
			d[0], l[0] = n, n
			return []Shape{d.Clone()}, nil
		},
		DType: func(_ *NoAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			res, labels := in[0].Float64s(), in[1].Float64s()
			k := in[0].Shape[1]
			for i := range labels {
				c, err := classIndex(labels[i], k, i)
				if err != nil {
					return err
				}
				res[i*k+c]--
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, res))
			return nil
		},
		Grad:    func(f F, _ *NoAttrs, _, _, g []Tensor) []Tensor { return []Tensor{g[0], nil} },
		Samples: []Sample{{Inputs: []Shape{{4, 3}, {4}}, Ints: map[int]int{1: 3}}},
	})

	opSmoothL1 = registerScalar(scalarMath{name: "smooth_l1", kind: "loss",
		doc: "0.5*(sigma*x)**2 where |x| < 1/sigma**2, else |x| - 0.5/sigma**2; sigma is the scalar attribute.",
		f: func(x, s float64) float64 {
			s2 := s * s
			if math.Abs(x) < 1/s2 {
				return 0.5 * s2 * x * x
			}
			return math.Abs(x) - 0.5/s2
		},
		grad: func(f F, s float64, x, y, g Tensor) Tensor {
			s2 := s * s
			inner := f.LesserScalar(f.Abs(x), 1/s2)
			d := f.Add(f.Mul(inner, f.MulScalar(x, s2)), f.Mul(f.RminusScalar(inner, 1), f.Sign(x)))
			return f.Mul(g, d)
		}})
}

// softmaxDef defines softmax, log_softmax (log) and softmin (neg), which
// is softmax with the temperature negated.
func softmaxDef(name string, log, neg bool, doc string) Def[SoftmaxAttrs] {
	temperature := func(a *SoftmaxAttrs) float64 {
		if neg {
			return -a.temperature()
		}
		return a.temperature()
	}
	return Def[SoftmaxAttrs]{
		Name: name, Kind: "softmax", Doc: doc, Inputs: []string{"data"},
		Check: func(a *SoftmaxAttrs) error {
			if a.UseLength {
				return Errorf("use_length=True (masking by a length input) is not supported")
			}
			if a.Temperature.Valid && a.Temperature.Value == 0 {
				return Errorf("temperature must not be 0")
			}
			if a.DType != Unknown && a.DType != Float32 && a.DType != Float64 {
				return Errorf("dtype %v is not supported (float32 or float64)", a.DType)
			}
			return nil
		},
		Shape: func(a *SoftmaxAttrs, in []Shape) ([]Shape, error) {
			if _, err := NormAxis(a.Axis, len(in[0])); err != nil {
				return nil, Errorf("axis %d is out of range for data of shape %v (%d dims)", a.Axis, in[0], len(in[0]))
			}
			return []Shape{in[0].Clone()}, nil
		},
		DType: func(a *SoftmaxAttrs, in []DType) ([]DType, error) {
			d, err := floatData(in[0])
			if err != nil || a.DType == Unknown {
				return d, err
			}
			return []DType{a.DType}, nil
		},
		Kernel: func(_ *Env, a *SoftmaxAttrs, in, out []Value) error {
			ax, err := NormAxis(a.Axis, len(in[0].Shape))
			if err != nil {
				return err
			}
			outer, n, inner := axisSplit(in[0].Shape, ax)
			return softmaxKernel(in[0], out[0], outer, n, inner, temperature(a), log)
		},
		Grad: func(f F, a *SoftmaxAttrs, in, out, g []Tensor) []Tensor {
			x, y, gy := in[0], out[0], g[0]
			var d Tensor
			if log {
				d = f.Sub(gy, f.Mul(f.Exp(y), f.Sum(gy, Axis(a.Axis), Keepdims())))
			} else {
				d = f.Mul(y, f.Sub(gy, f.Sum(f.Mul(gy, y), Axis(a.Axis), Keepdims())))
			}
			if t := temperature(a); t != 1 {
				d = f.DivScalar(d, t)
			}
			if d.DType() != x.DType() {
				d = f.Cast(d, x.DType())
			}
			return []Tensor{d}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 5}}, Low: -3, High: 3},
			{Attrs: map[string]string{"axis": "1"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axis": "0", "temperature": "2.5"}, Inputs: []Shape{{3, 2}}},
			{Attrs: map[string]string{"dtype": "float64"}, Inputs: []Shape{{4}}},
		},
	}
}

// floatData is the dtype rule of ops whose first input must be a float.
func floatData(d DType) ([]DType, error) {
	if d != Unknown && d != Float32 && d != Float64 {
		return nil, Errorf("data is %v; this op needs float32 or float64 (Cast it first)", d)
	}
	return []DType{d}, nil
}

// classIndex checks a label value of row i against k classes.
func classIndex(label float64, k, i int) (int, error) {
	c := int(label)
	if c < 0 || c >= k || math.IsNaN(label) {
		return 0, Errorf("label %v (row %d) is out of range for %d classes", label, i, k)
	}
	return c, nil
}

// softmaxKernel writes the softmax (or log-softmax) of in, viewed as
// (outer, n, inner) and normalised along n, into out.
func softmaxKernel(in, out Value, outer, n, inner int, temp float64, log bool) error {
	if err := requireFloat(in, out); err != nil {
		return err
	}
	switch x := in.Data.(type) {
	case []float32:
		if y, ok := out.Data.([]float32); ok {
			softmaxLoop(x, y, outer, n, inner, temp, log)
			return nil
		}
	case []float64:
		if y, ok := out.Data.([]float64); ok {
			softmaxLoop(x, y, outer, n, inner, temp, log)
			return nil
		}
	}
	// The dtype attribute asks for another output type: compute in float64.
	y := make([]float64, in.Shape.Size())
	softmaxLoop(in.Float64s(), y, outer, n, inner, temp, log)
	CopyData(out.Data, FromFloat64s(out.DType, y))
	return nil
}

func softmaxLoop[X, Y accel.Float](x []X, y []Y, outer, n, inner int, temp float64, log bool) {
	if n == 0 {
		return
	}
	accel.ParallelRange(outer*inner, 256, softmaxRange[X, Y]{x, y, n, inner, temp, log})
}

// softmaxRange is softmaxLoop's loop over rows.
type softmaxRange[X, Y accel.Float] struct {
	x     []X
	y     []Y
	n     int
	inner int
	temp  float64
	log   bool
}

func (l *softmaxRange[X, Y]) Range(lo, hi int) {
	x, y, n, inner, temp, log := l.x, l.y, l.n, l.inner, l.temp, l.log
	for r := lo; r < hi; r++ {
		base := (r/inner)*n*inner + r%inner
		m := math.Inf(-1)
		for k := 0; k < n; k++ {
			m = max(m, float64(x[base+k*inner])/temp)
		}
		s := 0.0
		for k := 0; k < n; k++ {
			s += math.Exp(float64(x[base+k*inner])/temp - m)
		}
		if log {
			ls := m + math.Log(s)
			for k := 0; k < n; k++ {
				y[base+k*inner] = Y(float64(x[base+k*inner])/temp - ls)
			}
			continue
		}
		for k := 0; k < n; k++ {
			y[base+k*inner] = Y(math.Exp(float64(x[base+k*inner])/temp-m) / s)
		}
	}
}

func checkSoftmaxOutput(a *SoftmaxOutputAttrs) error {
	if a.SmoothAlpha < 0 || a.SmoothAlpha > 1 {
		return Errorf("smooth_alpha=%v is outside [0, 1]", a.SmoothAlpha)
	}
	return nil
}

// layout views SoftmaxOutput's data as (outer, k, inner), normalised along k.
func (a *SoftmaxOutputAttrs) layout(d Shape) (outer, k, inner int) {
	switch {
	case len(d) < 2:
		return d.Size(), 1, 1
	case a.MultiOutput:
		return axisSplit(d, 1)
	case a.PreserveShape:
		return axisSplit(d, len(d)-1)
	}
	return d[0], d.Size() / max(d[0], 1), 1
}

// labelShape checks (and fills) the label shape of SoftmaxOutput against
// the data shape, as MXNet's shape rule does.
func (a *SoftmaxOutputAttrs) labelShape(in []Shape) error {
	d, l := in[0], in[1]
	if len(d) < 2 {
		return Errorf("data %v needs at least 2 dims (batch, classes, ...)", d)
	}
	if d.Known() && l.Equal(d) {
		return nil // class probabilities as the label
	}
	var want []Shape
	if a.MultiOutput {
		spatial := Shape(d[2:]).Size()
		want = []Shape{{d[0], spatial}, append(Shape{d[0]}, d[2:]...), append(Shape{d[0], 1}, d[2:]...)}
	} else {
		want = []Shape{d[:len(d)-1].Clone()}
	}
	if len(l) == 0 && len(want[0]) > 0 {
		in[1] = want[0]
		return nil
	}
	for _, w := range want {
		if merged, ok := mergeShapes(w, l); ok {
			copy(l, merged)
			return nil
		}
	}
	if a.MultiOutput {
		alts := []string{want[0].String()}
		for _, w := range want[1:] {
			if !w.Equal(want[0]) {
				alts = append(alts, w.String())
			}
		}
		return Errorf("label %v does not match data %v: expected %s (multi_output)", l, d, strings.Join(alts, " or "))
	}
	return Errorf("label %v does not match data %v: expected %v (data without its last dim) or %v", l, d, want[0], d)
}

// mergeShapes merges two shapes of one rank whose unknown dims (0) match anything.
func mergeShapes(a, b Shape) (Shape, bool) {
	if len(a) != len(b) {
		return nil, false
	}
	out := make(Shape, len(a))
	for i := range a {
		m, ok := mergeDim(a[i], b[i])
		if !ok {
			return nil, false
		}
		out[i] = m
	}
	return out, true
}

// softmaxOutputGrad is the kernel of _backward_SoftmaxOutput.
func softmaxOutputGrad(_ *Env, a *SoftmaxOutputAttrs, in, out []Value) error {
	ys, labels := in[0].Float64s(), in[1].Float64s()
	res := make([]float64, len(ys))
	if in[1].Shape.Equal(in[0].Shape) { // class probabilities as the label
		for i := range res {
			res[i] = (ys[i] - labels[i]) * a.GradScale
		}
		CopyData(out[0].Data, FromFloat64s(out[0].DType, res))
		return nil
	}
	outer, k, inner := a.layout(in[0].Shape)
	ignore := int(a.IgnoreLabel)
	off := a.SmoothAlpha / float64(max(k-1, 1)) // the target of the other classes
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			li := o*inner + i // MXNet reads label r for row r (or position (o, i))
			c := int(labels[li])
			base := o*k*inner + i
			if a.UseIgnore && c == ignore {
				continue // the row stays 0
			}
			if c < 0 || c >= k {
				return Errorf("label %v at %d is out of range for %d classes (set use_ignore to skip ignore_label)", labels[li], li, k)
			}
			for j := 0; j < k; j++ {
				t := off
				if j == c {
					t = 1 - a.SmoothAlpha
				}
				res[base+j*inner] = ys[base+j*inner] - t
			}
		}
	}
	scale := a.GradScale
	switch a.Normalization {
	case "batch":
		if a.MultiOutput {
			scale /= float64(in[0].Shape[0])
		} else {
			scale /= float64(len(labels))
		}
	case "valid":
		valid := 0
		for _, l := range labels {
			if int(l) != ignore {
				valid++
			}
		}
		scale /= float64(max(valid, 1))
	}
	if a.MultiOutput && a.Normalization != "valid" {
		scale /= float64(inner)
	}
	for i := range res {
		res[i] *= scale
	}
	CopyData(out[0].Data, FromFloat64s(out[0].DType, res))
	return nil
}

// Softmax returns exp(x) / sum(exp(x)) along the last axis, or along
// ops.Axis(n); ops.Attr{"temperature", t} divides x by t first.
func (f F) Softmax(x Tensor, attrs ...Attr) Tensor { return f.call1(opSoftmax, attrs, x) }

// Softmin returns exp(-x) / sum(exp(-x)) along an axis (default the last):
// the softmax of -x. It takes softmax's attributes.
func (f F) Softmin(x Tensor, attrs ...Attr) Tensor { return f.call1(opSoftmin, attrs, x) }

// LogSoftmax returns log(softmax(x)) along the last axis, or along ops.Axis(n).
func (f F) LogSoftmax(x Tensor, attrs ...Attr) Tensor { return f.call1(opLogSoftmax, attrs, x) }

// SoftmaxOutput is the softmax output layer: the forward is a softmax of
// data; the backward is MXNet's (softmax - one_hot(label)) * grad_scale,
// whatever the head gradient (unless ops.Attr{"out_grad", true}).
func (f F) SoftmaxOutput(data, label Tensor, attrs ...Attr) Tensor {
	return f.call1(opSoftmaxOutput, attrs, data, label)
}

func (f F) softmaxOutputBackward(a *SoftmaxOutputAttrs, out, label Tensor) Tensor {
	return f.callA(opSoftmaxOutputBackward, a, out, label)
}

// SoftmaxCrossEntropy returns sum_i -log(softmax(data[i])[label[i]]) as a
// (1,) array; data is (batch, classes) and label (batch,) holds class indices.
func (f F) SoftmaxCrossEntropy(data, label Tensor) Tensor {
	return f.callA(opSoftmaxCE, &NoAttrs{}, data, label)
}

func (f F) softmaxCEBackward(prob, label Tensor) Tensor {
	return f.callA(opSoftmaxCEBackward, &NoAttrs{}, prob, label)
}

// SmoothL1 returns 0.5*(sigma*x)**2 where |x| < 1/sigma**2 and
// |x| - 0.5/sigma**2 elsewhere.
func (f F) SmoothL1(x Tensor, sigma float64) Tensor { return f.scalar(opSmoothL1, x, sigma) }

// SoftmaxActivation is MXNet's older softmax: over all dims after the
// first (attribute mode=channel: along axis 1).
func (f F) SoftmaxActivation(x Tensor, attrs ...Attr) Tensor {
	return f.call1(opSoftmaxActivation, attrs, x)
}
