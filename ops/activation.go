package ops

import (
	"math"
	"reflect"
	"strings"

	"github.com/hybridgo/hybridgo/accel"
)

// Activation functions, each defined once as a unaryMath: relu, sigmoid,
// tanh and softsign are unary ops of their own (MXNet has both relu and
// Activation(act_type=relu)), and the Activation op applies any of them,
// or softrelu, log_sigmoid and mish, by act_type, with the same kernel,
// gradient rule and doc. The LeakyReLU op holds the leaky rectifiers
// (leaky, prelu with a learned slope per channel, elu, selu, gelu, rrelu).
//
// rrelu draws a random slope per element in training; here it runs only
// for prediction, with MXNet's prediction slope (lower_bound+upper_bound)/2,
// and a training forward is refused with an error.

// ActivationAttrs are the attributes of Activation.
type ActivationAttrs struct {
	ActType string `attr:"act_type" enum:"relu,sigmoid,tanh,softrelu,softsign,log_sigmoid,mish" doc:"the activation function"`
}

// LeakyReLUAttrs are the attributes of LeakyReLU.
type LeakyReLUAttrs struct {
	ActType    string  `attr:"act_type" default:"leaky" enum:"elu,gelu,leaky,prelu,rrelu,selu" doc:"the activation function"`
	Slope      float64 `attr:"slope" default:"0.25" doc:"the slope below 0 (leaky), or the scale of elu"`
	LowerBound float64 `attr:"lower_bound" default:"0.125" doc:"rrelu: the lowest random slope"`
	UpperBound float64 `attr:"upper_bound" default:"0.334" doc:"rrelu: the highest random slope"`
}

// HardSigmoidAttrs are the attributes of hard_sigmoid.
type HardSigmoidAttrs struct {
	Alpha float64 `attr:"alpha" default:"0.2" doc:"the slope"`
	Beta  float64 `attr:"beta" default:"0.5" doc:"the bias"`
}

// SELU's constants, as MXNet defines them.
const (
	seluAlpha  = 1.6732632423543772848170429916717
	seluLambda = 1.0507009873554804934193349852946
)

// f is hard_sigmoid of one value.
func (a *HardSigmoidAttrs) f(x float64) float64 { return min(1, max(0, a.Alpha*x+a.Beta)) }

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// softrelu is log(1 + e**x), without overflow for large x.
func softrelu(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// activations are Activation's functions by act_type, in the order of
// ActivationAttrs' enum. relu's gradient reads the output (y > 0 exactly
// where x > 0), so that the input is not kept for backward and a layer
// feeding relu can be fused with it (graph.FuseActivation).
var activations = map[string]unaryMath{
	"relu": {name: "relu", kind: "activation", fast: unaryRelu, doc: "max(x, 0).", f: func(x float64) float64 { return max(x, 0) },
		grad: func(f F, x, y, g Tensor) Tensor { return f.backwardRelu(g, y) }},
	"sigmoid": {name: "sigmoid", kind: "activation", doc: "1 / (1 + e**-x).", f: sigmoid, floatOnly: true, low: -4, high: 4,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(g, f.Mul(y, f.RminusScalar(y, 1))) }},
	"tanh": {name: "tanh", kind: "activation", doc: "Hyperbolic tangent.", f: math.Tanh, floatOnly: true,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(g, f.RminusScalar(f.Square(y), 1)) }},
	"softrelu": {name: "softrelu", doc: "log(1 + e**x).", f: softrelu, floatOnly: true, low: -5, high: 5,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(g, f.Sigmoid(x)) }},
	"softsign": {name: "softsign", kind: "activation", doc: "x / (1 + |x|).", f: func(x float64) float64 { return x / (1 + math.Abs(x)) }, floatOnly: true,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Div(g, f.Square(f.PlusScalar(f.Abs(x), 1))) }},
	"log_sigmoid": {name: "log_sigmoid", doc: "log(sigmoid(x)).", f: func(x float64) float64 { return -softrelu(-x) }, floatOnly: true, low: -3, high: 3,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(g, f.Sigmoid(f.Negative(x))) }},
	"mish": {name: "mish", doc: "x * tanh(softrelu(x)).", f: func(x float64) float64 { return x * math.Tanh(softrelu(x)) }, floatOnly: true, low: -3, high: 3,
		grad: func(f F, x, y, g Tensor) Tensor {
			t := f.Tanh(f.Activation(x, "softrelu"))
			d := f.Add(t, f.Mul(f.Mul(x, f.Sigmoid(x)), f.RminusScalar(f.Square(t), 1)))
			return f.Mul(g, d)
		}},
}

var opRelu, opSigmoid, opTanh, opSoftsign, opBackwardRelu, opActivation, opLeakyReLU, opHardSigmoid *Op

func init() {
	// The activation functions that MXNet also has as ops of their own.
	opRelu = registerUnary(activations["relu"])
	opSigmoid = registerUnary(activations["sigmoid"])
	opTanh = registerUnary(activations["tanh"])
	opSoftsign = registerUnary(activations["softsign"])

	opHardSigmoid = Register(Def[HardSigmoidAttrs]{
		Name: "hard_sigmoid", Kind: "activation",
		Doc:    "max(0, min(1, alpha*x + beta)). The gradient is alpha where 0 < alpha*x + beta < 1, else 0.",
		Inputs: []string{"data"},
		Shape:  func(_ *HardSigmoidAttrs, in []Shape) ([]Shape, error) { return []Shape{in[0].Clone()}, nil },
		DType:  func(_ *HardSigmoidAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *HardSigmoidAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			return mapUnary(in[0], out[0], a.f)
		},
		Elementwise: func(a *HardSigmoidAttrs) func([]float64) float64 {
			return func(x []float64) float64 { return a.f(x[0]) }
		},
		InPlace: true,
		Grad: func(f F, a *HardSigmoidAttrs, in, _, g []Tensor) []Tensor {
			z := f.PlusScalar(f.MulScalar(in[0], a.Alpha), a.Beta)
			inside := f.Mul(f.GreaterScalar(z, 0), f.LesserScalar(z, 1))
			return []Tensor{f.Mul(g[0], f.MulScalar(inside, a.Alpha))}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}}, Low: -1.4, High: 1.4},
			{Attrs: map[string]string{"alpha": "1", "beta": "0"}, Inputs: []Shape{{7}}, Low: 0.1, High: 0.9},
			{Attrs: map[string]string{"alpha": "0.5"}, Inputs: []Shape{{3, 4}}, Low: 1.2, High: 3, NoGradCheck: true},
		},
	})

	// _backward_relu is relu's gradient as one op: ograd where relu's
	// output is positive, else 0 (ograd * (out > 0), so a NaN or infinite
	// ograd still gives NaN where out <= 0, as the product does). Written
	// as broadcast_mul of _greater_scalar it would become an element-wise
	// fusion group, whose general loop costs far more than this one.
	opBackwardRelu = Register(Def[NoAttrs]{
		Name: "_backward_relu", Kind: "activation",
		Doc:    "The gradient of relu, from relu's output: ograd * (out > 0). Both inputs have one shape.",
		Inputs: []string{"ograd", "out"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			s, err := sameShape(in[0], in[1])
			return []Shape{s}, err
		},
		DType: func(_ *NoAttrs, in []DType) ([]DType, error) {
			if in[0] != Unknown && in[1] != Unknown && in[0] != in[1] {
				return nil, Errorf("ograd is %v but out is %v", in[0], in[1])
			}
			if in[0] == Unknown {
				return floatData(in[1])
			}
			return floatData(in[0])
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			if err := requireFloat(in...); err != nil {
				return err
			}
			switch g := in[0].Data.(type) {
			case []float32:
				accel.ReluGrad(g, in[1].Data.([]float32), out[0].Data.([]float32))
			case []float64:
				accel.ReluGrad(g, in[1].Data.([]float64), out[0].Data.([]float64))
			}
			return nil
		},
		// Linear in ograd; the mask is flat almost everywhere in out.
		Grad: func(f F, _ *NoAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.backwardRelu(g[0], in[1]), nil}
		},
		Samples: []Sample{{Inputs: []Shape{{2, 3}, {2, 3}}}, {Inputs: []Shape{{7}, {7}}}},
	})

	opActivation = Register(Def[ActivationAttrs]{
		Name: "Activation", Kind: "activation",
		Doc:    activationDoc(),
		Inputs: []string{"data"},
		Shape:  func(_ *ActivationAttrs, in []Shape) ([]Shape, error) { return []Shape{in[0].Clone()}, nil },
		DType:  func(_ *ActivationAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *ActivationAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			return activations[a.ActType].kernel(in[0], out[0])
		},
		Elementwise: func(a *ActivationAttrs) func([]float64) float64 { return activations[a.ActType].elementwise() },
		InPlace:     true,
		Grad: func(f F, a *ActivationAttrs, in, out, g []Tensor) []Tensor {
			return []Tensor{activations[a.ActType].grad(f, in[0], out[0], g[0])}
		},
		Samples: activationSamples(),
	})

	opLeakyReLU = Register(Def[LeakyReLUAttrs]{
		Name: "LeakyReLU",
		Kind: "activation",
		Doc: "Leaky rectifiers. leaky: x if x > 0 else slope*x. prelu: the same with the learned slope gamma, " +
			"one per channel (axis 1) or one in all. elu: slope*(e**x - 1) below 0. selu: lambda*(x or alpha*(e**x - 1)) " +
			"with MXNet's alpha and lambda. gelu: 0.5*x*(1 + erf(x/sqrt(2))). rrelu: prediction only, with the slope " +
			"(lower_bound+upper_bound)/2; its random training forward is not supported.",
		InputNames: func(a *LeakyReLUAttrs) []string {
			if a.ActType == "prelu" {
				return []string{"data", "gamma"}
			}
			return []string{"data"}
		},
		Check: func(a *LeakyReLUAttrs) error {
			if a.ActType == "rrelu" && a.LowerBound > a.UpperBound {
				return Errorf("lower_bound=%v is above upper_bound=%v", a.LowerBound, a.UpperBound)
			}
			return nil
		},
		Shape: func(a *LeakyReLUAttrs, in []Shape) ([]Shape, error) {
			if a.ActType == "prelu" {
				if err := preluGammaShape(in); err != nil {
					return nil, err
				}
			}
			return []Shape{in[0].Clone()}, nil
		},
		DType: func(_ *LeakyReLUAttrs, in []DType) ([]DType, error) {
			if len(in) > 1 && in[1] != Unknown && in[0] != Unknown && in[1] != in[0] {
				return nil, Errorf("gamma is %v but data is %v; use Cast to convert one of them", in[1], in[0])
			}
			return floatData(in[0])
		},
		Kernel: leakyReLUKernel,
		// prelu reads its slope from an input and rrelu's forward depends
		// on the mode, so only leaky, elu, selu and gelu are element-wise.
		Elementwise: func(a *LeakyReLUAttrs) func([]float64) float64 {
			if a.ActType == "rrelu" {
				return nil
			}
			f := a.elemFunc()
			if f == nil {
				return nil
			}
			return func(x []float64) float64 { return f(x[0]) }
		},
		InPlace: true, // every mode reads data[i] before writing out[i]
		Grad: func(f F, a *LeakyReLUAttrs, in, out, g []Tensor) []Tensor {
			x, gy := in[0], g[0]
			pos := f.GreaterScalar(x, 0)
			neg := f.RminusScalar(pos, 1)
			switch a.ActType {
			case "prelu":
				gamma := f.Reshape(in[1], preluBroadcastShape(x.Shape(), in[1].Shape())...)
				dx := f.Mul(gy, f.Add(pos, f.Mul(neg, gamma)))
				dgamma := f.Reshape(f.SumLike(f.Mul(gy, f.Mul(x, neg)), gamma), in[1].Shape()...)
				return []Tensor{dx, dgamma}
			case "elu", "selu":
				alpha, scale := a.Slope, 1.0
				if a.ActType == "selu" {
					alpha, scale = seluAlpha, seluLambda
				}
				below := f.MulScalar(f.Exp(f.MinimumScalar(x, 0)), alpha) // e**x is only used below 0
				return []Tensor{f.Mul(gy, f.MulScalar(f.Add(pos, f.Mul(neg, below)), scale))}
			case "gelu":
				cdf := f.MulScalar(f.PlusScalar(f.Erf(f.MulScalar(x, 1/math.Sqrt2)), 1), 0.5)
				pdf := f.MulScalar(f.Exp(f.MulScalar(f.Square(x), -0.5)), 1/math.Sqrt(2*math.Pi))
				return []Tensor{f.Mul(gy, f.Add(cdf, f.Mul(x, pdf)))}
			}
			slope := a.leakySlope()
			return []Tensor{f.Mul(gy, f.PlusScalar(f.MulScalar(pos, 1-slope), slope))}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"act_type": "leaky", "slope": "0.1"}, Inputs: []Shape{{5}}},
			{Attrs: map[string]string{"act_type": "prelu"}, Inputs: []Shape{{2, 3, 4}, {3}}},
			{Attrs: map[string]string{"act_type": "prelu"}, Inputs: []Shape{{2, 3}, {1}}},
			{Attrs: map[string]string{"act_type": "elu", "slope": "0.5"}, Inputs: []Shape{{2, 3}}, Low: -2, High: 2},
			{Attrs: map[string]string{"act_type": "selu"}, Inputs: []Shape{{2, 3}}, Low: -2, High: 2},
			{Attrs: map[string]string{"act_type": "gelu"}, Inputs: []Shape{{2, 3}}, Low: -3, High: 3},
			{Attrs: map[string]string{"act_type": "rrelu"}, Inputs: []Shape{{2, 3}}, NoGradCheck: true},
		},
	})
}

// leakySlope is the slope below 0 of leaky and (in prediction) rrelu.
func (a *LeakyReLUAttrs) leakySlope() float64 {
	if a.ActType == "rrelu" {
		return (a.LowerBound + a.UpperBound) / 2
	}
	return a.Slope
}

// preluGammaShape checks gamma against the data (one slope, or one per
// channel along axis 1) and fills it in when it is unknown, as MXNet's
// rule does: with one slope per channel of data, (channels,), once the
// data's number of dims is known. While the data's shape is wholly
// unknown, gamma's stays unknown too (a params file may still give it).
func preluGammaShape(in []Shape) error {
	d, gm := in[0], in[1]
	if d == nil {
		return nil
	}
	channels := 1
	if len(d) >= 2 {
		channels = d[1]
	}
	if len(gm) == 0 || (len(gm) == 1 && gm[0] == 0) {
		in[1] = Shape{channels}
		return nil
	}
	if len(gm) != 1 {
		return Errorf("gamma %v must be 1-D: one slope, or one per channel of data %v", gm, d)
	}
	switch {
	case gm[0] == 1:
	case len(d) >= 2 && d[1] == 0:
		d[1] = gm[0] // the data's channels were not known yet
	case len(d) >= 2 && gm[0] == d[1]:
	default:
		return Errorf("gamma %v has %d slopes, data %v has %d channels (axis 1)", gm, gm[0], d, channels)
	}
	return nil
}

// preluBroadcastShape is gamma's shape made to broadcast along axis 1 of data.
func preluBroadcastShape(data, gamma Shape) Shape {
	if gamma.Size() == 1 || len(data) < 2 {
		return Shape{gamma.Size()}
	}
	s := make(Shape, len(data))
	for i := range s {
		s[i] = 1
	}
	s[1] = gamma.Size()
	return s
}

func leakyReLUKernel(env *Env, a *LeakyReLUAttrs, in, out []Value) error {
	if err := requireFloat(in...); err != nil {
		return err
	}
	switch a.ActType {
	case "prelu":
		return preluKernel(in[0], in[1], out[0])
	case "rrelu":
		if env.Training {
			return Errorf("act_type=rrelu draws random slopes in training, which is not supported; use it for prediction, or use act_type=leaky")
		}
	}
	fn := a.elemFunc()
	if fn == nil {
		return Errorf("act_type=%s is not supported", a.ActType)
	}
	return mapUnary(in[0], out[0], fn)
}

// elemFunc is the per-element function of act_type leaky, elu, selu, gelu
// and (in prediction) rrelu; nil for prelu, whose slope is an input.
func (a *LeakyReLUAttrs) elemFunc() func(float64) float64 {
	switch a.ActType {
	case "leaky", "rrelu":
		slope := a.leakySlope()
		return func(x float64) float64 {
			if x > 0 {
				return x
			}
			return slope * x
		}
	case "elu":
		scale := a.Slope
		return func(x float64) float64 {
			if x > 0 {
				return x
			}
			return scale * math.Expm1(x)
		}
	case "selu":
		return func(x float64) float64 {
			if x > 0 {
				return seluLambda * x
			}
			return seluLambda * seluAlpha * math.Expm1(x)
		}
	case "gelu":
		return func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }
	}
	return nil
}

// preluKernel applies x if x > 0 else gamma[c]*x, c the channel (axis 1).
func preluKernel(data, gamma, out Value) error {
	xs, gs := data.Float64s(), gamma.Float64s()
	inner := 1
	if len(data.Shape) > 2 {
		inner = Shape(data.Shape[2:]).Size()
	}
	res := make([]float64, len(xs))
	for i, x := range xs {
		res[i] = x
		if x <= 0 {
			res[i] = x * gs[(i/inner)%len(gs)]
		}
	}
	CopyData(out.Data, FromFloat64s(out.DType, res))
	return nil
}

// activationTypes are Activation's act_types, in the order of its enum.
func activationTypes() []string { return attrInfos(reflect.TypeFor[ActivationAttrs]())[0].Enum }

// activationDoc is Activation's doc, made of its functions' docs.
func activationDoc() string {
	var b strings.Builder
	b.WriteString("An element-wise activation chosen by act_type:")
	for _, t := range activationTypes() {
		b.WriteString(" " + t + ": " + activations[t].doc)
	}
	return b.String()
}

// activationSamples are Activation's samples: one per act_type, over the
// input range of its function.
func activationSamples() []Sample {
	var s []Sample
	for _, t := range activationTypes() {
		m := activations[t]
		s = append(s, Sample{Attrs: map[string]string{"act_type": t}, Inputs: []Shape{{2, 3}}, Low: m.low, High: m.high})
	}
	return s
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

// Relu returns max(x, 0).
func (f F) Relu(x Tensor) Tensor { return f.callA(opRelu, &NoAttrs{}, x) }

// HardSigmoid returns max(0, min(1, alpha*x + beta)); alpha is 0.2 and beta
// 0.5 unless given (ops.Attr{"alpha", 0.25}).
func (f F) HardSigmoid(x Tensor, attrs ...Attr) Tensor { return f.call1(opHardSigmoid, attrs, x) }

// Sigmoid returns 1 / (1 + e**-x).
func (f F) Sigmoid(x Tensor) Tensor { return f.callA(opSigmoid, &NoAttrs{}, x) }

// Tanh returns the hyperbolic tangent.
func (f F) Tanh(x Tensor) Tensor { return f.callA(opTanh, &NoAttrs{}, x) }

// Softsign returns x / (1 + |x|).
func (f F) Softsign(x Tensor) Tensor { return f.callA(opSoftsign, &NoAttrs{}, x) }

// backwardRelu runs _backward_relu: the gradient of relu whose output is y.
func (f F) backwardRelu(g, y Tensor) Tensor { return f.callA(opBackwardRelu, &NoAttrs{}, g, y) }

// Activation applies an activation function element-wise: actType is one
// of relu, sigmoid, tanh, softrelu, softsign, log_sigmoid, mish.
func (f F) Activation(x Tensor, actType string) Tensor {
	return f.call1(opActivation, []Attr{{"act_type", actType}}, x)
}

// LeakyReLU applies a leaky rectifier: actType is leaky, elu, selu, gelu or
// rrelu (prediction only); ops.Attr{"slope", 0.1} sets the slope of leaky
// and the scale of elu. Use PReLU for the learned slope.
func (f F) LeakyReLU(x Tensor, actType string, attrs ...Attr) Tensor {
	return f.call1(opLeakyReLU, append([]Attr{{"act_type", actType}}, attrs...), x)
}

// PReLU is LeakyReLU with act_type prelu: x if x > 0 else gamma*x, where
// gamma holds one slope, or one per channel (axis 1 of x).
func (f F) PReLU(x, gamma Tensor, attrs ...Attr) Tensor {
	return f.call1(opLeakyReLU, append([]Attr{{"act_type", "prelu"}}, attrs...), x, gamma)
}
