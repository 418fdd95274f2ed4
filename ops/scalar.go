package ops

import (
	"cmp"
	"math"
)

// Scalar forms: one array and one number, x op scalar (or scalar op x for
// the _r* forms), under MXNet's names.

// ScalarAttrs are the attributes of the *_scalar ops.
type ScalarAttrs struct {
	Scalar float64 `attr:"scalar" default:"1.0" doc:"the number on the other side of the op"`
	IsInt  bool    `attr:"is_int" default:"True" doc:"written by MXNet 1.8+ when the scalar is an integer; ignored"`
}

type scalarMath struct {
	name      string
	aliases   []string
	doc       string
	f         func(x, s float64) float64
	grad      func(f F, s float64, x, y, g Tensor) Tensor // nil: zero gradient
	low, high float64
	kind      string // Def.Kind; "" means "elementwise"
}

func registerScalar(m scalarMath) *Op {
	low, high := m.low, m.high
	if low == 0 && high == 0 {
		low, high = -1, 1
	}
	def := Def[ScalarAttrs]{
		Name: m.name, Kind: cmp.Or(m.kind, "elementwise"), Aliases: m.aliases, Doc: m.doc, Inputs: []string{"data"},
		Shape: func(_ *ScalarAttrs, in []Shape) ([]Shape, error) { return []Shape{in[0].Clone()}, nil },
		DType: func(_ *ScalarAttrs, in []DType) ([]DType, error) {
			if in[0] == Bool {
				return nil, Errorf("dtype bool is not supported; Cast the input first")
			}
			return []DType{in[0]}, nil
		},
		Kernel: func(_ *Env, a *ScalarAttrs, in, out []Value) error {
			s := a.Scalar
			return mapUnary(in[0], out[0], func(x float64) float64 { return m.f(x, s) })
		},
		Elementwise: func(a *ScalarAttrs) func([]float64) float64 {
			s := a.Scalar
			return func(x []float64) float64 { return m.f(x[0], s) }
		},
		InPlace: true,
		Samples: []Sample{
			{Attrs: map[string]string{"scalar": "0.5"}, Inputs: []Shape{{2, 3}}, Low: low, High: high},
			{Attrs: map[string]string{"scalar": "3"}, Inputs: []Shape{{4}}, Low: low, High: high},
		},
	}
	if m.grad != nil {
		def.Grad = func(f F, a *ScalarAttrs, in, out, g []Tensor) []Tensor {
			return []Tensor{m.grad(f, a.Scalar, in[0], out[0], g[0])}
		}
	} else {
		def.NoGrad = true
	}
	return Register(def)
}

var opPlusScalar, opMinusScalar, opRminusScalar, opMulScalar, opDivScalar, opRdivScalar, opModScalar, opRmodScalar, opPowerScalar, opRpowerScalar, opMaximumScalar, opMinimumScalar, opHypotScalar *Op

func init() {
	opPlusScalar = registerScalar(scalarMath{name: "_plus_scalar", aliases: []string{"_PlusScalar"}, doc: "x + scalar.",
		f: func(x, s float64) float64 { return x + s }, grad: func(f F, s float64, x, y, g Tensor) Tensor { return g }})
	opMinusScalar = registerScalar(scalarMath{name: "_minus_scalar", aliases: []string{"_MinusScalar"}, doc: "x - scalar.",
		f: func(x, s float64) float64 { return x - s }, grad: func(f F, s float64, x, y, g Tensor) Tensor { return g }})
	opRminusScalar = registerScalar(scalarMath{name: "_rminus_scalar", aliases: []string{"_RMinusScalar"}, doc: "scalar - x.",
		f: func(x, s float64) float64 { return s - x }, grad: func(f F, s float64, x, y, g Tensor) Tensor { return f.Negative(g) }})
	opMulScalar = registerScalar(scalarMath{name: "_mul_scalar", aliases: []string{"_MulScalar"}, doc: "x * scalar.",
		f: func(x, s float64) float64 { return x * s }, grad: func(f F, s float64, x, y, g Tensor) Tensor { return f.MulScalar(g, s) }})
	opDivScalar = registerScalar(scalarMath{name: "_div_scalar", aliases: []string{"_DivScalar"}, doc: "x / scalar.",
		f: func(x, s float64) float64 { return x / s }, grad: func(f F, s float64, x, y, g Tensor) Tensor { return f.DivScalar(g, s) }})
	opRdivScalar = registerScalar(scalarMath{name: "_rdiv_scalar", aliases: []string{"_RDivScalar"}, doc: "scalar / x.",
		f: func(x, s float64) float64 { return s / x }, low: 0.5, high: 2,
		grad: func(f F, s float64, x, y, g Tensor) Tensor { return f.Negative(f.Mul(g, f.Div(y, x))) }})
	opModScalar = registerScalar(scalarMath{name: "_mod_scalar", aliases: []string{"_ModScalar"}, doc: "x mod scalar (sign of scalar, as numpy).",
		f: pyMod, low: 0.1, high: 0.45, grad: func(f F, s float64, x, y, g Tensor) Tensor { return g }})
	opRmodScalar = registerScalar(scalarMath{name: "_rmod_scalar", aliases: []string{"_RModScalar"}, doc: "scalar mod x.",
		f: func(x, s float64) float64 { return pyMod(s, x) }, low: 0.7, high: 0.9,
		grad: func(f F, s float64, x, y, g Tensor) Tensor {
			return f.Negative(f.Mul(g, f.Floor(f.Reciprocal(f.DivScalar(x, s)))))
		}})
	opPowerScalar = registerScalar(scalarMath{name: "_power_scalar", aliases: []string{"_PowerScalar"}, doc: "x ** scalar.",
		f: math.Pow, low: 0.5, high: 2,
		grad: func(f F, s float64, x, y, g Tensor) Tensor { return f.Mul(g, f.MulScalar(f.PowerScalar(x, s-1), s)) }})
	opRpowerScalar = registerScalar(scalarMath{name: "_rpower_scalar", aliases: []string{"_RPowerScalar"}, doc: "scalar ** x.",
		f:    func(x, s float64) float64 { return math.Pow(s, x) },
		grad: func(f F, s float64, x, y, g Tensor) Tensor { return f.Mul(g, f.MulScalar(y, math.Log(s))) }})
	opMaximumScalar = registerScalar(scalarMath{name: "_maximum_scalar", aliases: []string{"_MaximumScalar"}, doc: "max(x, scalar).",
		f: math.Max, grad: func(f F, s float64, x, y, g Tensor) Tensor { return f.Mul(g, f.GreaterEqualScalar(x, s)) }})
	opMinimumScalar = registerScalar(scalarMath{name: "_minimum_scalar", aliases: []string{"_MinimumScalar"}, doc: "min(x, scalar).",
		f: math.Min, grad: func(f F, s float64, x, y, g Tensor) Tensor { return f.Mul(g, f.LesserEqualScalar(x, s)) }})
	opHypotScalar = registerScalar(scalarMath{name: "_hypot_scalar", aliases: []string{"_HypotScalar"}, doc: "sqrt(x*x + scalar*scalar).",
		f: math.Hypot, grad: func(f F, s float64, x, y, g Tensor) Tensor { return f.Mul(g, f.Div(x, y)) }})
}

func (f F) scalar(op *Op, x Tensor, s float64) Tensor {
	return f.callA(op, &ScalarAttrs{Scalar: s, IsInt: s == math.Trunc(s)}, x)
}

// PlusScalar returns x + s.
func (f F) PlusScalar(x Tensor, s float64) Tensor { return f.scalar(opPlusScalar, x, s) }

// MinusScalar returns x - s.
func (f F) MinusScalar(x Tensor, s float64) Tensor { return f.scalar(opMinusScalar, x, s) }

// RminusScalar returns s - x.
func (f F) RminusScalar(x Tensor, s float64) Tensor { return f.scalar(opRminusScalar, x, s) }

// MulScalar returns x * s.
func (f F) MulScalar(x Tensor, s float64) Tensor { return f.scalar(opMulScalar, x, s) }

// DivScalar returns x / s.
func (f F) DivScalar(x Tensor, s float64) Tensor { return f.scalar(opDivScalar, x, s) }

// RdivScalar returns s / x.
func (f F) RdivScalar(x Tensor, s float64) Tensor { return f.scalar(opRdivScalar, x, s) }

// ModScalar returns x mod s.
func (f F) ModScalar(x Tensor, s float64) Tensor { return f.scalar(opModScalar, x, s) }

// RmodScalar returns s mod x.
func (f F) RmodScalar(x Tensor, s float64) Tensor { return f.scalar(opRmodScalar, x, s) }

// PowerScalar returns x ** s.
func (f F) PowerScalar(x Tensor, s float64) Tensor { return f.scalar(opPowerScalar, x, s) }

// RpowerScalar returns s ** x.
func (f F) RpowerScalar(x Tensor, s float64) Tensor { return f.scalar(opRpowerScalar, x, s) }

// MaximumScalar returns max(x, s).
func (f F) MaximumScalar(x Tensor, s float64) Tensor { return f.scalar(opMaximumScalar, x, s) }

// MinimumScalar returns min(x, s).
func (f F) MinimumScalar(x Tensor, s float64) Tensor { return f.scalar(opMinimumScalar, x, s) }

// HypotScalar returns sqrt(x*x + s*s).
func (f F) HypotScalar(x Tensor, s float64) Tensor { return f.scalar(opHypotScalar, x, s) }
