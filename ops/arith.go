package ops

import "math"

// Arithmetic: broadcast_* (numpy broadcasting), elemwise_* (equal shapes),
// and the *_scalar forms. F.Add, F.Sub, F.Mul and F.Div broadcast in every
// mode; the MXNet names stay for model files.

// binaryMath describes a two-input element-wise op.
type binaryMath struct {
	name    string
	aliases []string
	doc     string
	f       func(x, y float64) float64
	// grad returns the gradients of a and b, before summing away broadcast
	// dims; nil when the op has a zero gradient.
	grad func(f F, a, b, out, g Tensor) (Tensor, Tensor)
	low  float64 // sample input range, when the default [-1, 1] is unsuitable
	high float64
	kind arithKind // the float fast path (fastpath.go), or 0
}

var opBroadcastAdd, opBroadcastSub, opBroadcastMul, opBroadcastDiv, opBroadcastMod, opBroadcastPower, opBroadcastMaximum, opBroadcastMinimum, opBroadcastHypot, opElemwiseAdd, opElemwiseSub, opElemwiseMul, opElemwiseDiv *Op

func init() {
	opBroadcastAdd = registerBroadcast(binaryMath{name: "broadcast_add", kind: arithAdd, aliases: []string{"broadcast_plus", "_add", "_plus", "_Plus"},
		doc: "a + b with numpy broadcasting.", f: func(x, y float64) float64 { return x + y },
		grad: func(f F, a, b, out, g Tensor) (Tensor, Tensor) { return g, g }})
	opBroadcastSub = registerBroadcast(binaryMath{name: "broadcast_sub", kind: arithSub, aliases: []string{"broadcast_minus", "_sub", "_minus", "_Minus"},
		doc: "a - b with numpy broadcasting.", f: func(x, y float64) float64 { return x - y },
		grad: func(f F, a, b, out, g Tensor) (Tensor, Tensor) { return g, f.Negative(g) }})
	opBroadcastMul = registerBroadcast(binaryMath{name: "broadcast_mul", kind: arithMul, aliases: []string{"_mul", "_Mul"},
		doc: "a * b with numpy broadcasting.", f: func(x, y float64) float64 { return x * y },
		grad: func(f F, a, b, out, g Tensor) (Tensor, Tensor) { return f.Mul(g, b), f.Mul(g, a) }})
	opBroadcastDiv = registerBroadcast(binaryMath{name: "broadcast_div", kind: arithDiv, aliases: []string{"_div", "_Div"},
		doc: "a / b with numpy broadcasting.", f: func(x, y float64) float64 { return x / y },
		grad: func(f F, a, b, out, g Tensor) (Tensor, Tensor) {
			gb := f.Div(g, b)
			return gb, f.Negative(f.Mul(gb, f.Div(a, b)))
		}, low: 0.5, high: 2})
	opBroadcastMod = registerBroadcast(binaryMath{name: "broadcast_mod", aliases: []string{"_mod", "_Mod"},
		doc: "a mod b with numpy broadcasting (the result has the sign of b, as in numpy).", f: pyMod,
		grad: func(f F, a, b, out, g Tensor) (Tensor, Tensor) {
			return g, f.Negative(f.Mul(g, f.Floor(f.Div(a, b))))
		}, low: 0.3, high: 2})
	opBroadcastPower = registerBroadcast(binaryMath{name: "broadcast_power", aliases: []string{"_power", "_Power"},
		doc: "a ** b with numpy broadcasting.", f: math.Pow,
		grad: func(f F, a, b, out, g Tensor) (Tensor, Tensor) {
			ga := f.Mul(g, f.Mul(b, f.Power(a, f.MinusScalar(b, 1))))
			gb := f.Mul(g, f.Mul(out, f.Log(a)))
			return ga, gb
		}, low: 0.5, high: 2})
	opBroadcastMaximum = registerBroadcast(binaryMath{name: "broadcast_maximum", aliases: []string{"_maximum", "_Maximum"},
		doc: "The larger of a and b, with numpy broadcasting.", f: math.Max,
		grad: func(f F, a, b, out, g Tensor) (Tensor, Tensor) {
			mask := f.GreaterEqual(a, b)
			return f.Mul(g, mask), f.Mul(g, f.RminusScalar(mask, 1))
		}})
	opBroadcastMinimum = registerBroadcast(binaryMath{name: "broadcast_minimum", aliases: []string{"_minimum", "_Minimum"},
		doc: "The smaller of a and b, with numpy broadcasting.", f: math.Min,
		grad: func(f F, a, b, out, g Tensor) (Tensor, Tensor) {
			mask := f.LesserEqual(a, b)
			return f.Mul(g, mask), f.Mul(g, f.RminusScalar(mask, 1))
		}})
	opBroadcastHypot = registerBroadcast(binaryMath{name: "broadcast_hypot", aliases: []string{"_hypot", "_Hypot"},
		doc: "sqrt(a*a + b*b), with numpy broadcasting.", f: math.Hypot,
		grad: func(f F, a, b, out, g Tensor) (Tensor, Tensor) {
			return f.Mul(g, f.Div(a, out)), f.Mul(g, f.Div(b, out))
		}, low: 0.5, high: 2})

	opElemwiseAdd = registerElemwise("elemwise_add", opBroadcastAdd)
	opElemwiseSub = registerElemwise("elemwise_sub", opBroadcastSub)
	opElemwiseMul = registerElemwise("elemwise_mul", opBroadcastMul)
	opElemwiseDiv = registerElemwise("elemwise_div", opBroadcastDiv)
}

func pyMod(x, y float64) float64 {
	if y == 0 {
		return math.NaN()
	}
	m := math.Mod(x, y)
	if m != 0 && (m < 0) != (y < 0) {
		m += y
	}
	return m
}

var binaryMathByOp = map[*Op]binaryMath{}

// elementwise is the op's per-element function for Def.Elementwise.
func (m binaryMath) elementwise(*NoAttrs) func([]float64) float64 {
	return func(x []float64) float64 { return m.f(x[0], x[1]) }
}

func registerBroadcast(m binaryMath) *Op {
	low, high := m.low, m.high
	if low == 0 && high == 0 {
		low, high = -1, 1
	}
	def := Def[NoAttrs]{
		Name: m.name, Kind: "elementwise", Aliases: m.aliases, Doc: m.doc, Inputs: []string{"lhs", "rhs"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			s, err := BroadcastShapes(in[0], in[1])
			return []Shape{s}, err
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			if fastBinary(m.kind, in[0], in[1], out[0]) {
				return nil
			}
			return mapBinary(in[0], in[1], out[0], m.f)
		},
		Elementwise: m.elementwise,
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}, {2, 3}}, Low: low, High: high},
			{Inputs: []Shape{{2, 3, 4}, {3, 1}}, Low: low, High: high},
			{Inputs: []Shape{{1, 4}, {3, 1}}, Low: low, High: high},
			{Inputs: []Shape{{5}, {}}, Low: low, High: high},
		},
	}
	if m.grad != nil {
		def.Grad = func(f F, _ *NoAttrs, in, out, g []Tensor) []Tensor {
			ga, gb := m.grad(f, in[0], in[1], out[0], g[0])
			return []Tensor{f.SumLike(ga, in[0]), f.SumLike(gb, in[1])}
		}
	} else {
		def.NoGrad = true
	}
	op := Register(def)
	binaryMathByOp[op] = m
	return op
}

// registerElemwise registers the equal-shape form of a broadcast op.
func registerElemwise(name string, bop *Op) *Op {
	m := binaryMathByOp[bop]
	return Register(Def[NoAttrs]{
		Name: name, Kind: "elementwise", Doc: "Like " + bop.Name() + ", but both inputs must have the same shape.",
		Inputs: []string{"lhs", "rhs"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			s, err := sameShape(in[0], in[1])
			if err == nil && s != nil {
				in[0], in[1] = s.Clone(), s.Clone() // fill an unknown side
			}
			return []Shape{s}, err
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			if fastBinary(m.kind, in[0], in[1], out[0]) {
				return nil
			}
			return mapBinary(in[0], in[1], out[0], m.f)
		},
		Elementwise: m.elementwise,
		Grad: func(f F, _ *NoAttrs, in, out, g []Tensor) []Tensor {
			ga, gb := m.grad(f, in[0], in[1], out[0], g[0])
			return []Tensor{ga, gb}
		},
		Samples: []Sample{{Inputs: []Shape{{2, 3}, {2, 3}}, Low: 0.5, High: 2}},
	})
}

// sameShape merges two shapes that must be equal, filling unknown dims of either.
func sameShape(a, b Shape) (Shape, error) {
	switch { // a nil shape is unknown: the other one decides
	case a == nil:
		return b.Clone(), nil
	case b == nil:
		return a.Clone(), nil
	}
	if len(a) != len(b) {
		return nil, Errorf("shapes %v and %v differ (this op does not broadcast; use the broadcast_ form)", a, b)
	}
	out := make(Shape, len(a))
	for i := range a {
		switch {
		case a[i] == b[i] || b[i] == 0:
			out[i] = a[i]
		case a[i] == 0:
			out[i] = b[i]
		default:
			return nil, Errorf("shapes %v and %v differ (this op does not broadcast; use the broadcast_ form)", a, b)
		}
	}
	copy(a, out)
	copy(b, out)
	return out, nil
}

// Add returns a + b, broadcasting (broadcast_add).
func (f F) Add(a, b Tensor) Tensor { return f.callA(opBroadcastAdd, &NoAttrs{}, a, b) }

// Sub returns a - b, broadcasting (broadcast_sub).
func (f F) Sub(a, b Tensor) Tensor { return f.callA(opBroadcastSub, &NoAttrs{}, a, b) }

// Mul returns a * b, broadcasting (broadcast_mul).
func (f F) Mul(a, b Tensor) Tensor { return f.callA(opBroadcastMul, &NoAttrs{}, a, b) }

// Div returns a / b, broadcasting (broadcast_div).
func (f F) Div(a, b Tensor) Tensor { return f.callA(opBroadcastDiv, &NoAttrs{}, a, b) }

// Mod returns a mod b, broadcasting (broadcast_mod).
func (f F) Mod(a, b Tensor) Tensor { return f.callA(opBroadcastMod, &NoAttrs{}, a, b) }

// Power returns a ** b, broadcasting (broadcast_power).
func (f F) Power(a, b Tensor) Tensor { return f.callA(opBroadcastPower, &NoAttrs{}, a, b) }

// Maximum returns the element-wise larger of a and b, broadcasting.
func (f F) Maximum(a, b Tensor) Tensor { return f.callA(opBroadcastMaximum, &NoAttrs{}, a, b) }

// Minimum returns the element-wise smaller of a and b, broadcasting.
func (f F) Minimum(a, b Tensor) Tensor { return f.callA(opBroadcastMinimum, &NoAttrs{}, a, b) }

// Hypot returns sqrt(a*a + b*b), broadcasting.
func (f F) Hypot(a, b Tensor) Tensor { return f.callA(opBroadcastHypot, &NoAttrs{}, a, b) }

// BroadcastAdd is Add under its MXNet name.
func (f F) BroadcastAdd(a, b Tensor) Tensor { return f.Add(a, b) }

// BroadcastSub is Sub under its MXNet name.
func (f F) BroadcastSub(a, b Tensor) Tensor { return f.Sub(a, b) }

// BroadcastMul is Mul under its MXNet name.
func (f F) BroadcastMul(a, b Tensor) Tensor { return f.Mul(a, b) }

// BroadcastDiv is Div under its MXNet name.
func (f F) BroadcastDiv(a, b Tensor) Tensor { return f.Div(a, b) }

// ElemwiseAdd returns a + b for inputs of one shape (elemwise_add).
func (f F) ElemwiseAdd(a, b Tensor) Tensor { return f.callA(opElemwiseAdd, &NoAttrs{}, a, b) }

// ElemwiseSub returns a - b for inputs of one shape (elemwise_sub).
func (f F) ElemwiseSub(a, b Tensor) Tensor { return f.callA(opElemwiseSub, &NoAttrs{}, a, b) }

// ElemwiseMul returns a * b for inputs of one shape (elemwise_mul).
func (f F) ElemwiseMul(a, b Tensor) Tensor { return f.callA(opElemwiseMul, &NoAttrs{}, a, b) }

// ElemwiseDiv returns a / b for inputs of one shape (elemwise_div).
func (f F) ElemwiseDiv(a, b Tensor) Tensor { return f.callA(opElemwiseDiv, &NoAttrs{}, a, b) }

// sumLikeOp sums a broadcast gradient down to the shape of the input it
// belongs to: the adjoint of broadcasting.
var opSumLike *Op

func init() {
	opSumLike = Register(Def[NoAttrs]{
		Name: "_reduce_sum_like", Kind: "reduce", Doc: "Sums data down to the shape of like, which must broadcast to data's shape (the gradient of broadcasting).",
		Inputs: []string{"data", "like"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			b, err := BroadcastShapes(in[0], in[1])
			if err != nil || (in[0].Known() && !b.Equal(in[0])) {
				return nil, Errorf("shape %v does not broadcast to %v", in[1], in[0])
			}
			return []Shape{in[1].Clone()}, nil
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error { return sumTo(in[0], out[0]) },
		Grad: func(f F, _ *NoAttrs, in, out, g []Tensor) []Tensor {
			return []Tensor{f.BroadcastLike(g[0], in[0]), nil}
		},
		Samples: []Sample{{Inputs: []Shape{{2, 3, 4}, {3, 1}}}, {Inputs: []Shape{{2, 3}, {2, 3}}}},
	})
}

// SumLike sums x down to the shape of like (a no-op when the shapes match).
func (f F) SumLike(x, like Tensor) Tensor {
	if x.Shape().Equal(like.Shape()) {
		return x
	}
	return f.callA(opSumLike, &NoAttrs{}, x, like)
}
