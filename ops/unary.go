package ops

import (
	"cmp"
	"math"
)

// Unary math: one input, one output of the same shape, applied element by
// element. Each entry is the whole definition of the op. The activation
// functions relu, sigmoid, tanh and softsign are unary ops too, defined
// beside Activation (activation.go).

// unaryMath describes a one-input element-wise op.
type unaryMath struct {
	name    string
	aliases []string
	doc     string
	f       func(float64) float64
	// grad returns the input's gradient from x, the output y and the
	// output's gradient g; nil means the gradient is zero everywhere.
	grad      func(f F, x, y, g Tensor) Tensor
	low, high float64   // sample input range (default -1, 1)
	floatOnly bool      // integer inputs make no sense (exp, log, …)
	fast      unaryKind // the float fast path (fastpath.go), or 0
	kind      string    // Def.Kind; "" means "elementwise"
}

func registerUnary(m unaryMath) *Op {
	low, high := m.low, m.high
	if low == 0 && high == 0 {
		low, high = -1, 1
	}
	def := Def[NoAttrs]{
		Name: m.name, Kind: cmp.Or(m.kind, "elementwise"), Aliases: m.aliases, Doc: m.doc, Inputs: []string{"data"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) { return []Shape{in[0].Clone()}, nil },
		DType: func(_ *NoAttrs, in []DType) ([]DType, error) {
			if in[0] == Bool || (m.floatOnly && in[0] != Unknown && !in[0].IsFloat()) {
				return nil, Errorf("dtype %v is not supported; Cast the input to float32 first", in[0])
			}
			return []DType{in[0]}, nil
		},
		Kernel:      func(_ *Env, _ *NoAttrs, in, out []Value) error { return m.kernel(in[0], out[0]) },
		Elementwise: func(*NoAttrs) func([]float64) float64 { return m.elementwise() },
		InPlace:     true,
		Samples:     []Sample{{Inputs: []Shape{{2, 3}}, Low: low, High: high}, {Inputs: []Shape{{7}}, Low: low, High: high}},
	}
	if m.grad != nil {
		def.Grad = func(f F, _ *NoAttrs, in, out, g []Tensor) []Tensor {
			return []Tensor{m.grad(f, in[0], out[0], g[0])}
		}
	} else {
		def.NoGrad = true
	}
	return Register(def)
}

// kernel computes out[i] = f(in[i]) (through the fast path where there is one).
func (m unaryMath) kernel(in, out Value) error {
	if fastUnary(m.fast, in, out) {
		return nil
	}
	return mapUnary(in, out, m.f)
}

// elementwise is the op's per-element function for Def.Elementwise.
func (m unaryMath) elementwise() func([]float64) float64 {
	return func(x []float64) float64 { return m.f(x[0]) }
}

// rint is MXNet's rint: the nearer of floor(x) and ceil(x), floor on a tie.
func rint(x float64) float64 {
	lo, hi := math.Floor(x), math.Ceil(x)
	if x-lo <= hi-x {
		return lo
	}
	return hi
}

// lgamma is log |Γ(x)|.
func lgamma(x float64) float64 {
	y, _ := math.Lgamma(x)
	return y
}

// digamma is ψ(x) = d/dx log Γ(x): the recurrence ψ(x) = ψ(x+1) - 1/x up
// to x >= 6, then the asymptotic series; reflection for x < 0.
func digamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || (x <= 0 && x == math.Floor(x)):
		return math.NaN()
	case x < 0: // ψ(1-x) - ψ(x) = π·cot(πx)
		return digamma(1-x) - math.Pi/math.Tan(math.Pi*x)
	}
	r := 0.0
	for ; x < 6; x++ {
		r -= 1 / x
	}
	f := 1 / (x * x)
	return r + math.Log(x) - 0.5/x - f*(1.0/12-f*(1.0/120-f*(1.0/252-f*(1.0/240-f/132))))
}

// registerGammaBackward registers the gradient op of gamma or gammaln:
// ograd · d(x) element by element, with inputs (ograd, data).
func registerGammaBackward(name, doc string, d func(float64) float64) *Op {
	return Register(Def[NoAttrs]{
		Name: name, Kind: "elementwise", Doc: doc, Inputs: []string{"ograd", "data"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			if err := checkOgrad(in[0], in[1], "the input"); err != nil {
				return nil, err
			}
			return []Shape{in[1].Clone()}, nil
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			if err := requireFloat(in...); err != nil {
				return err
			}
			return mapBinary(in[0], in[1], out[0], func(g, x float64) float64 { return g * d(x) })
		},
		Elementwise: func(*NoAttrs) func([]float64) float64 {
			return func(v []float64) float64 { return v[0] * d(v[1]) }
		},
		Samples: []Sample{{Inputs: []Shape{{2, 3}, {2, 3}}, Low: 0.5, High: 3}},
	})
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

var opNegative, opAbs, opSign, opExp, opExpm1, opLog, opLog1p, opLog2, opSqrt, opRsqrt, opCbrt, opSquare, opReciprocal, opSin, opCos, opTan, opArcsin, opArccos, opArctan, opSinh, opCosh, opErf, opFloor, opCeil, opRound, opTrunc *Op

var opLog10, opArcsinh, opArccosh, opArctanh, opRint, opRcbrt, opRadians, opDegrees *Op

var opErfinv, opGamma, opGammaln, opBackwardGamma, opBackwardGammaln *Op

func init() {
	opNegative = registerUnary(unaryMath{name: "negative", fast: unaryNegative, doc: "-x.", f: func(x float64) float64 { return -x },
		grad: func(f F, x, y, g Tensor) Tensor { return f.Negative(g) }})
	opAbs = registerUnary(unaryMath{name: "abs", fast: unaryAbs, doc: "|x|.", f: math.Abs,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(g, f.Sign(x)) }})
	opSign = registerUnary(unaryMath{name: "sign", doc: "-1, 0 or 1 by the sign of x.", f: sign})
	opExp = registerUnary(unaryMath{name: "exp", doc: "e**x.", f: math.Exp, floatOnly: true,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(g, y) }})
	opExpm1 = registerUnary(unaryMath{name: "expm1", doc: "e**x - 1, accurate near 0.", f: math.Expm1, floatOnly: true,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(g, f.Exp(x)) }})
	opLog = registerUnary(unaryMath{name: "log", doc: "Natural logarithm.", f: math.Log, floatOnly: true, low: 0.2, high: 2,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Div(g, x) }})
	opLog1p = registerUnary(unaryMath{name: "log1p", doc: "log(1 + x), accurate near 0.", f: math.Log1p, floatOnly: true, low: -0.5, high: 2,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Div(g, f.PlusScalar(x, 1)) }})
	opLog2 = registerUnary(unaryMath{name: "log2", doc: "Base-2 logarithm.", f: math.Log2, floatOnly: true, low: 0.2, high: 2,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Div(g, f.MulScalar(x, math.Ln2)) }})
	opSqrt = registerUnary(unaryMath{name: "sqrt", doc: "Square root.", f: math.Sqrt, floatOnly: true, low: 0.2, high: 2,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Div(f.MulScalar(g, 0.5), y) }})
	opRsqrt = registerUnary(unaryMath{name: "rsqrt", doc: "1 / sqrt(x).", f: func(x float64) float64 { return 1 / math.Sqrt(x) }, floatOnly: true, low: 0.2, high: 2,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(f.MulScalar(g, -0.5), f.Mul(y, f.Square(y))) }})
	opCbrt = registerUnary(unaryMath{name: "cbrt", doc: "Cube root.", f: math.Cbrt, floatOnly: true, low: 0.2, high: 2,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Div(g, f.MulScalar(f.Square(y), 3)) }})
	opSquare = registerUnary(unaryMath{name: "square", fast: unarySquare, doc: "x * x.", f: func(x float64) float64 { return x * x },
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(g, f.MulScalar(x, 2)) }})
	opReciprocal = registerUnary(unaryMath{name: "reciprocal", doc: "1 / x.", f: func(x float64) float64 { return 1 / x }, floatOnly: true, low: 0.5, high: 2,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Negative(f.Mul(g, f.Square(y))) }})
	opSin = registerUnary(unaryMath{name: "sin", doc: "Sine.", f: math.Sin, floatOnly: true,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(g, f.Cos(x)) }})
	opCos = registerUnary(unaryMath{name: "cos", doc: "Cosine.", f: math.Cos, floatOnly: true,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Negative(f.Mul(g, f.Sin(x))) }})
	opTan = registerUnary(unaryMath{name: "tan", doc: "Tangent.", f: math.Tan, floatOnly: true,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(g, f.PlusScalar(f.Square(y), 1)) }})
	opArcsin = registerUnary(unaryMath{name: "arcsin", doc: "Inverse sine.", f: math.Asin, floatOnly: true, low: -0.8, high: 0.8,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(g, f.Rsqrt(f.RminusScalar(f.Square(x), 1))) }})
	opArccos = registerUnary(unaryMath{name: "arccos", doc: "Inverse cosine.", f: math.Acos, floatOnly: true, low: -0.8, high: 0.8,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Negative(f.Mul(g, f.Rsqrt(f.RminusScalar(f.Square(x), 1)))) }})
	opArctan = registerUnary(unaryMath{name: "arctan", doc: "Inverse tangent.", f: math.Atan, floatOnly: true,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Div(g, f.PlusScalar(f.Square(x), 1)) }})
	opSinh = registerUnary(unaryMath{name: "sinh", doc: "Hyperbolic sine.", f: math.Sinh, floatOnly: true,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(g, f.Cosh(x)) }})
	opCosh = registerUnary(unaryMath{name: "cosh", doc: "Hyperbolic cosine.", f: math.Cosh, floatOnly: true,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(g, f.Sinh(x)) }})
	opErf = registerUnary(unaryMath{name: "erf", doc: "The error function.", f: math.Erf, floatOnly: true,
		grad: func(f F, x, y, g Tensor) Tensor {
			return f.Mul(g, f.MulScalar(f.Exp(f.Negative(f.Square(x))), 2/math.Sqrt(math.Pi)))
		}})
	opLog10 = registerUnary(unaryMath{name: "log10", doc: "Base-10 logarithm.", f: math.Log10, floatOnly: true, low: 0.2, high: 2,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Div(g, f.MulScalar(x, math.Ln10)) }})
	opArcsinh = registerUnary(unaryMath{name: "arcsinh", doc: "Inverse hyperbolic sine.", f: math.Asinh, floatOnly: true,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(g, f.Rsqrt(f.PlusScalar(f.Square(x), 1))) }})
	opArccosh = registerUnary(unaryMath{name: "arccosh", doc: "Inverse hyperbolic cosine (defined for x >= 1).", f: math.Acosh, floatOnly: true, low: 1.2, high: 3,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Mul(g, f.Rsqrt(f.MinusScalar(f.Square(x), 1))) }})
	opArctanh = registerUnary(unaryMath{name: "arctanh", doc: "Inverse hyperbolic tangent (defined for -1 < x < 1).", f: math.Atanh, floatOnly: true, low: -0.8, high: 0.8,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Div(g, f.RminusScalar(f.Square(x), 1)) }})
	opRcbrt = registerUnary(unaryMath{name: "rcbrt", doc: "1 / cbrt(x).", f: func(x float64) float64 { return 1 / math.Cbrt(x) }, floatOnly: true, low: 0.2, high: 2,
		grad: func(f F, x, y, g Tensor) Tensor { return f.Div(f.Mul(g, y), f.MulScalar(x, -3)) }})
	opRadians = registerUnary(unaryMath{name: "radians", doc: "Degrees converted to radians: x * pi / 180.", f: func(x float64) float64 { return x * (math.Pi / 180) }, floatOnly: true,
		grad: func(f F, x, y, g Tensor) Tensor { return f.MulScalar(g, math.Pi/180) }})
	opDegrees = registerUnary(unaryMath{name: "degrees", doc: "Radians converted to degrees: x * 180 / pi.", f: func(x float64) float64 { return x * (180 / math.Pi) }, floatOnly: true,
		grad: func(f F, x, y, g Tensor) Tensor { return f.MulScalar(g, 180/math.Pi) }})
	opErfinv = registerUnary(unaryMath{name: "erfinv", doc: "The inverse error function (defined for -1 < x < 1).", f: math.Erfinv, floatOnly: true, low: -0.8, high: 0.8,
		grad: func(f F, x, y, g Tensor) Tensor {
			return f.Mul(g, f.MulScalar(f.Exp(f.Square(y)), math.Sqrt(math.Pi)/2))
		}})
	opGamma = registerUnary(unaryMath{name: "gamma", doc: "The gamma function Γ(x). Its gradient is Γ(x)·ψ(x), ψ the digamma function.", f: math.Gamma, floatOnly: true, low: 0.5, high: 3,
		grad: func(f F, x, y, g Tensor) Tensor { return f.callA(opBackwardGamma, &NoAttrs{}, g, x) }})
	opGammaln = registerUnary(unaryMath{name: "gammaln", doc: "log |Γ(x)|, the logarithm of the gamma function's magnitude. Its gradient is the digamma function ψ(x).", f: lgamma, floatOnly: true, low: 0.5, high: 3,
		grad: func(f F, x, y, g Tensor) Tensor { return f.callA(opBackwardGammaln, &NoAttrs{}, g, x) }})
	opBackwardGamma = registerGammaBackward("_backward_gamma", "The gradient of gamma: ograd · Γ(x)·ψ(x), ψ the digamma function.",
		func(x float64) float64 { return math.Gamma(x) * digamma(x) })
	opBackwardGammaln = registerGammaBackward("_backward_gammaln", "The gradient of gammaln: ograd · ψ(x), ψ the digamma function.", digamma)
	opRint = registerUnary(unaryMath{name: "rint", doc: "Nearest integer; a half goes to the integer below (MXNet's rint: rint(2.5) = 2, rint(-2.5) = -3).", f: rint})
	opFloor = registerUnary(unaryMath{name: "floor", doc: "Largest integer not above x.", f: math.Floor})
	opCeil = registerUnary(unaryMath{name: "ceil", doc: "Smallest integer not below x.", f: math.Ceil})
	opRound = registerUnary(unaryMath{name: "round", doc: "Nearest integer, halves away from zero.", f: math.Round})
	opTrunc = registerUnary(unaryMath{name: "trunc", aliases: []string{"fix"}, doc: "x with its fraction dropped (rounds toward zero).", f: math.Trunc})
}

// Negative returns -x.
func (f F) Negative(x Tensor) Tensor { return f.callA(opNegative, &NoAttrs{}, x) }

// Abs returns |x|.
func (f F) Abs(x Tensor) Tensor { return f.callA(opAbs, &NoAttrs{}, x) }

// Sign returns -1, 0 or 1 by the sign of x.
func (f F) Sign(x Tensor) Tensor { return f.callA(opSign, &NoAttrs{}, x) }

// Exp returns e**x.
func (f F) Exp(x Tensor) Tensor { return f.callA(opExp, &NoAttrs{}, x) }

// Expm1 returns e**x - 1.
func (f F) Expm1(x Tensor) Tensor { return f.callA(opExpm1, &NoAttrs{}, x) }

// Log returns the natural logarithm.
func (f F) Log(x Tensor) Tensor { return f.callA(opLog, &NoAttrs{}, x) }

// Log1p returns log(1 + x).
func (f F) Log1p(x Tensor) Tensor { return f.callA(opLog1p, &NoAttrs{}, x) }

// Log2 returns the base-2 logarithm.
func (f F) Log2(x Tensor) Tensor { return f.callA(opLog2, &NoAttrs{}, x) }

// Sqrt returns the square root.
func (f F) Sqrt(x Tensor) Tensor { return f.callA(opSqrt, &NoAttrs{}, x) }

// Rsqrt returns 1 / sqrt(x).
func (f F) Rsqrt(x Tensor) Tensor { return f.callA(opRsqrt, &NoAttrs{}, x) }

// Cbrt returns the cube root.
func (f F) Cbrt(x Tensor) Tensor { return f.callA(opCbrt, &NoAttrs{}, x) }

// Square returns x * x.
func (f F) Square(x Tensor) Tensor { return f.callA(opSquare, &NoAttrs{}, x) }

// Reciprocal returns 1 / x.
func (f F) Reciprocal(x Tensor) Tensor { return f.callA(opReciprocal, &NoAttrs{}, x) }

// Sin returns the sine.
func (f F) Sin(x Tensor) Tensor { return f.callA(opSin, &NoAttrs{}, x) }

// Cos returns the cosine.
func (f F) Cos(x Tensor) Tensor { return f.callA(opCos, &NoAttrs{}, x) }

// Tan returns the tangent.
func (f F) Tan(x Tensor) Tensor { return f.callA(opTan, &NoAttrs{}, x) }

// Arcsin returns the inverse sine.
func (f F) Arcsin(x Tensor) Tensor { return f.callA(opArcsin, &NoAttrs{}, x) }

// Arccos returns the inverse cosine.
func (f F) Arccos(x Tensor) Tensor { return f.callA(opArccos, &NoAttrs{}, x) }

// Arctan returns the inverse tangent.
func (f F) Arctan(x Tensor) Tensor { return f.callA(opArctan, &NoAttrs{}, x) }

// Sinh returns the hyperbolic sine.
func (f F) Sinh(x Tensor) Tensor { return f.callA(opSinh, &NoAttrs{}, x) }

// Cosh returns the hyperbolic cosine.
func (f F) Cosh(x Tensor) Tensor { return f.callA(opCosh, &NoAttrs{}, x) }

// Erf returns the error function.
func (f F) Erf(x Tensor) Tensor { return f.callA(opErf, &NoAttrs{}, x) }

// Floor rounds down.
func (f F) Floor(x Tensor) Tensor { return f.callA(opFloor, &NoAttrs{}, x) }

// Ceil rounds up.
func (f F) Ceil(x Tensor) Tensor { return f.callA(opCeil, &NoAttrs{}, x) }

// Round rounds to the nearest integer, halves away from zero.
func (f F) Round(x Tensor) Tensor { return f.callA(opRound, &NoAttrs{}, x) }

// Trunc rounds toward zero.
func (f F) Trunc(x Tensor) Tensor { return f.callA(opTrunc, &NoAttrs{}, x) }

// Log10 returns the base-10 logarithm.
func (f F) Log10(x Tensor) Tensor { return f.callA(opLog10, &NoAttrs{}, x) }

// Arcsinh returns the inverse hyperbolic sine.
func (f F) Arcsinh(x Tensor) Tensor { return f.callA(opArcsinh, &NoAttrs{}, x) }

// Arccosh returns the inverse hyperbolic cosine.
func (f F) Arccosh(x Tensor) Tensor { return f.callA(opArccosh, &NoAttrs{}, x) }

// Arctanh returns the inverse hyperbolic tangent.
func (f F) Arctanh(x Tensor) Tensor { return f.callA(opArctanh, &NoAttrs{}, x) }

// Rint rounds to the nearest integer, a half to the integer below.
func (f F) Rint(x Tensor) Tensor { return f.callA(opRint, &NoAttrs{}, x) }

// Rcbrt returns 1 / cbrt(x).
func (f F) Rcbrt(x Tensor) Tensor { return f.callA(opRcbrt, &NoAttrs{}, x) }

// Radians converts degrees to radians.
func (f F) Radians(x Tensor) Tensor { return f.callA(opRadians, &NoAttrs{}, x) }

// Degrees converts radians to degrees.
func (f F) Degrees(x Tensor) Tensor { return f.callA(opDegrees, &NoAttrs{}, x) }

// Erfinv returns the inverse error function.
func (f F) Erfinv(x Tensor) Tensor { return f.callA(opErfinv, &NoAttrs{}, x) }

// Gamma returns the gamma function Γ(x).
func (f F) Gamma(x Tensor) Tensor { return f.callA(opGamma, &NoAttrs{}, x) }

// Gammaln returns log |Γ(x)|.
func (f F) Gammaln(x Tensor) Tensor { return f.callA(opGammaln, &NoAttrs{}, x) }
