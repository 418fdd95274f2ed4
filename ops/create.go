package ops

import (
	"fmt"
	"math"
)

// Creation ops (arrays from attributes alone, or shaped like an input),
// random ops, and the ops that pass values through: Cast, identity, BlockGrad.

// FillAttrs are the attributes of _zeros and _ones.
type FillAttrs struct {
	Shape Tuple  `attr:"shape" default:"()" doc:"the shape of the result"`
	DType DType  `attr:"dtype" default:"float32"`
	Ctx   string `attr:"ctx" default:"" doc:"device context; only cpu exists"`
}

// FullAttrs are the attributes of _full.
type FullAttrs struct {
	Shape Tuple   `attr:"shape" default:"()"`
	DType DType   `attr:"dtype" default:"float32"`
	Ctx   string  `attr:"ctx" default:""`
	Value float64 `attr:"value" doc:"the value of every element"`
}

// ArangeAttrs are the attributes of _arange.
type ArangeAttrs struct {
	Start      float64  `attr:"start" doc:"first value (or the stop, when stop is None)"`
	Stop       OptFloat `attr:"stop" default:"None"`
	Step       float64  `attr:"step" default:"1.0"`
	Repeat     int      `attr:"repeat" default:"1" doc:"how many times each value repeats"`
	InferRange bool     `attr:"infer_range" default:"False"`
	DType      DType    `attr:"dtype" default:"float32"`
	Ctx        string   `attr:"ctx" default:""`
}

// LinspaceAttrs are the attributes of _linspace.
type LinspaceAttrs struct {
	Start    float64 `attr:"start" doc:"the first value"`
	Stop     float64 `attr:"stop" doc:"the last value (with endpoint), or the end of the interval"`
	Num      int     `attr:"num" doc:"how many values"`
	Endpoint bool    `attr:"endpoint" default:"True" doc:"whether stop is the last value"`
	Ctx      string  `attr:"ctx" default:""`
	DType    DType   `attr:"dtype" default:"float32"`
}

// ArangeLikeAttrs are the attributes of _contrib_arange_like.
type ArangeLikeAttrs struct {
	Start  float64 `attr:"start" default:"0.0" doc:"the first value"`
	Step   float64 `attr:"step" default:"1.0" doc:"the spacing of the values"`
	Repeat int     `attr:"repeat" default:"1" doc:"how many times each value repeats"`
	Ctx    string  `attr:"ctx" default:""`
	Axis   OptInt  `attr:"axis" default:"None" doc:"give the values along this axis of data only (a 1-D result); None: the shape of data"`
}

// EyeAttrs are the attributes of _eye.
type EyeAttrs struct {
	N     int    `attr:"N" doc:"rows"`
	M     int    `attr:"M" default:"0" doc:"columns; 0 means N"`
	K     int    `attr:"k" default:"0" doc:"diagonal: 0 main, >0 above, <0 below"`
	DType DType  `attr:"dtype" default:"float32"`
	Ctx   string `attr:"ctx" default:""`
}

// UniformAttrs are the attributes of _random_uniform.
type UniformAttrs struct {
	Low   float64 `attr:"low" default:"0.0"`
	High  float64 `attr:"high" default:"1.0"`
	Shape Tuple   `attr:"shape" default:"()"`
	DType DType   `attr:"dtype" default:"float32"`
	Ctx   string  `attr:"ctx" default:""`
}

// NormalAttrs are the attributes of _random_normal.
type NormalAttrs struct {
	Loc   float64 `attr:"loc" default:"0.0"`
	Scale float64 `attr:"scale" default:"1.0"`
	Shape Tuple   `attr:"shape" default:"()"`
	DType DType   `attr:"dtype" default:"float32"`
	Ctx   string  `attr:"ctx" default:""`
}

// CastAttrs are the attributes of Cast.
type CastAttrs struct {
	DType DType `attr:"dtype" doc:"the dtype to convert to"`
}

func checkShapeAttr(s Tuple) error {
	for _, d := range s {
		if d < 0 {
			return Errorf("shape %v has a negative dim", s)
		}
	}
	return nil
}

func knownDType(d DType) ([]DType, error) {
	if !d.Supported() {
		return nil, Errorf("dtype %v has no kernels", d)
	}
	return []DType{d}, nil
}

func fillDef(name, doc string, value float64) Def[FillAttrs] {
	return Def[FillAttrs]{
		Name: name, Kind: "other", Doc: doc,
		Check: func(a *FillAttrs) error { return checkShapeAttr(a.Shape) },
		Shape: func(a *FillAttrs, _ []Shape) ([]Shape, error) { return []Shape{Shape(a.Shape).Clone()}, nil },
		DType: func(a *FillAttrs, _ []DType) ([]DType, error) { return knownDType(a.DType) },
		Kernel: func(_ *Env, _ *FillAttrs, _, out []Value) error {
			fillData(out[0].Data, value)
			return nil
		},
		NoGrad:  true,
		Samples: []Sample{{Attrs: map[string]string{"shape": "(2, 3)"}}, {Attrs: map[string]string{"shape": "(4,)", "dtype": "int32"}}},
	}
}

func likeDef(name, doc string, value float64) Def[NoAttrs] {
	return Def[NoAttrs]{
		Name: name, Kind: "elementwise", Doc: doc, Inputs: []string{"data"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) { return []Shape{in[0].Clone()}, nil },
		Kernel: func(_ *Env, _ *NoAttrs, _, out []Value) error {
			fillData(out[0].Data, value)
			return nil
		},
		NoGrad:  true,
		Samples: []Sample{{Inputs: []Shape{{2, 3}}}},
	}
}

var opZeros, opOnes, opZerosLike, opOnesLike, opFull, opArange, opEye, opRandomUniform, opRandomNormal, opCast, opIdentity, opBlockGrad *Op

var opLinspace, opArangeLike *Op

func init() {
	opZeros = Register(fillDef("_zeros", "An array of zeros.", 0))
	opOnes = Register(fillDef("_ones", "An array of ones.", 1))
	opZerosLike = Register(likeDef("zeros_like", "Zeros with the shape and dtype of the input.", 0))
	opOnesLike = Register(likeDef("ones_like", "Ones with the shape and dtype of the input.", 1))

	opFull = Register(Def[FullAttrs]{
		Name: "_full", Kind: "other", Doc: "An array filled with one value.",
		Check: func(a *FullAttrs) error { return checkShapeAttr(a.Shape) },
		Shape: func(a *FullAttrs, _ []Shape) ([]Shape, error) { return []Shape{Shape(a.Shape).Clone()}, nil },
		DType: func(a *FullAttrs, _ []DType) ([]DType, error) { return knownDType(a.DType) },
		Kernel: func(_ *Env, a *FullAttrs, _, out []Value) error {
			fillData(out[0].Data, a.Value)
			return nil
		},
		NoGrad:  true,
		Samples: []Sample{{Attrs: map[string]string{"shape": "(2, 2)", "value": "3.5"}}},
	})

	opArange = Register(Def[ArangeAttrs]{
		Name: "_arange", Kind: "other", Aliases: []string{"arange"}, Doc: "Evenly spaced values in [start, stop), each repeated `repeat` times.",
		Check: func(a *ArangeAttrs) error {
			if a.Step == 0 {
				return Errorf("step must not be 0")
			}
			if a.Repeat < 1 {
				return Errorf("repeat must be at least 1, got %d", a.Repeat)
			}
			return nil
		},
		Shape: func(a *ArangeAttrs, _ []Shape) ([]Shape, error) {
			n := arangeLen(a)
			if n <= 0 {
				return nil, Errorf("the range [%v, %v) with step %v is empty", a.Start, arangeStop(a), a.Step)
			}
			return []Shape{{n * a.Repeat}}, nil
		},
		DType: func(a *ArangeAttrs, _ []DType) ([]DType, error) { return knownDType(a.DType) },
		Kernel: func(_ *Env, a *ArangeAttrs, _, out []Value) error {
			start := a.Start
			if !a.Stop.Valid {
				start = 0
			}
			xs := make([]float64, out[0].Shape.Size())
			for i := range xs {
				xs[i] = start + float64(i/a.Repeat)*a.Step
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, xs))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{{Attrs: map[string]string{"start": "0", "stop": "5"}},
			{Attrs: map[string]string{"start": "1", "stop": "2", "step": "0.25", "repeat": "2"}}},
	})

	opLinspace = Register(Def[LinspaceAttrs]{
		Name: "_linspace", Kind: "other",
		Doc: "num evenly spaced values from start to stop (stop included when endpoint): start + i·step, " +
			"step = (stop - start) / (num - 1), or / num without endpoint.",
		Check: func(a *LinspaceAttrs) error {
			if a.Num < 0 {
				return Errorf("num=%d must not be negative", a.Num)
			}
			return nil
		},
		Shape: func(a *LinspaceAttrs, _ []Shape) ([]Shape, error) { return []Shape{{a.Num}}, nil },
		DType: func(a *LinspaceAttrs, _ []DType) ([]DType, error) { return knownDType(a.DType) },
		Kernel: func(_ *Env, a *LinspaceAttrs, _, out []Value) error {
			steps := a.Num
			if a.Endpoint {
				steps--
			}
			step := 0.0
			if steps > 0 {
				step = (a.Stop - a.Start) / float64(steps)
			}
			xs := make([]float64, out[0].Shape.Size())
			for i := range xs {
				xs[i] = a.Start + step*float64(i)
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, xs))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{{Attrs: map[string]string{"start": "0", "stop": "1", "num": "5"}},
			{Attrs: map[string]string{"start": "2", "stop": "-1", "num": "4", "endpoint": "False", "dtype": "float64"}}},
	})

	opArangeLike = Register(Def[ArangeLikeAttrs]{
		Name: "_contrib_arange_like", Kind: "other",
		Doc: "Evenly spaced values start + (i / repeat)·step with the shape of data, or, with axis, as many as " +
			"data's axis has (a 1-D result); the result has data's dtype. Data's values are not read.",
		Inputs: []string{"data"},
		Check: func(a *ArangeLikeAttrs) error {
			if a.Repeat < 1 {
				return Errorf("repeat must be at least 1, got %d", a.Repeat)
			}
			return nil
		},
		Shape: func(a *ArangeLikeAttrs, in []Shape) ([]Shape, error) {
			if !a.Axis.Valid {
				return []Shape{in[0].Clone()}, nil
			}
			ax, err := NormAxis(a.Axis.Value, len(in[0]))
			if err != nil {
				return nil, Errorf("axis %d is out of range for data of shape %v", a.Axis.Value, in[0])
			}
			return []Shape{{in[0][ax]}}, nil
		},
		Kernel: func(_ *Env, a *ArangeLikeAttrs, _, out []Value) error {
			xs := make([]float64, out[0].Shape.Size())
			for i := range xs {
				xs[i] = a.Start + float64(i/a.Repeat)*a.Step
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, xs))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{{Inputs: []Shape{{3, 4}}},
			{Attrs: map[string]string{"start": "1", "step": "0.5", "repeat": "2", "axis": "-1"}, Inputs: []Shape{{2, 6}}}},
	})

	opEye = Register(Def[EyeAttrs]{
		Name: "_eye", Kind: "other", Aliases: []string{"eye"}, Doc: "A 2-D array with ones on the k-th diagonal.",
		Check: func(a *EyeAttrs) error {
			if a.N <= 0 || a.M < 0 {
				return Errorf("N must be positive and M not negative, got N=%d M=%d", a.N, a.M)
			}
			return nil
		},
		Shape: func(a *EyeAttrs, _ []Shape) ([]Shape, error) {
			m := a.M
			if m == 0 {
				m = a.N
			}
			return []Shape{{a.N, m}}, nil
		},
		DType: func(a *EyeAttrs, _ []DType) ([]DType, error) { return knownDType(a.DType) },
		Kernel: func(_ *Env, a *EyeAttrs, _, out []Value) error {
			rows, cols := out[0].Shape[0], out[0].Shape[1]
			xs := make([]float64, rows*cols)
			for i := 0; i < rows; i++ {
				if j := i + a.K; j >= 0 && j < cols {
					xs[i*cols+j] = 1
				}
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, xs))
			return nil
		},
		NoGrad:  true,
		Samples: []Sample{{Attrs: map[string]string{"N": "3"}}, {Attrs: map[string]string{"N": "2", "M": "4", "k": "1"}}},
	})

	opRandomUniform = Register(Def[UniformAttrs]{
		Name: "_random_uniform", Kind: "other", Aliases: []string{"random_uniform", "uniform"}, Doc: "Samples from the uniform distribution on [low, high).",
		Check: func(a *UniformAttrs) error {
			if a.High < a.Low {
				return Errorf("high=%v is below low=%v", a.High, a.Low)
			}
			return checkShapeAttr(a.Shape)
		},
		Shape: func(a *UniformAttrs, _ []Shape) ([]Shape, error) { return []Shape{Shape(a.Shape).Clone()}, nil },
		DType: func(a *UniformAttrs, _ []DType) ([]DType, error) { return randomDType(a.DType) },
		Kernel: func(env *Env, a *UniformAttrs, _, out []Value) error {
			return fillRandom(out[0], func() float64 { return a.Low + (a.High-a.Low)*env.Rand.Float64() })
		},
		NoGrad: true, Random: true,
		Samples: []Sample{{Attrs: map[string]string{"shape": "(2, 3)", "low": "-1", "high": "1"}}},
	})

	opRandomNormal = Register(Def[NormalAttrs]{
		Name: "_random_normal", Kind: "other", Aliases: []string{"random_normal", "normal"}, Doc: "Samples from the normal distribution N(loc, scale²).",
		Check: func(a *NormalAttrs) error {
			if a.Scale < 0 {
				return Errorf("scale=%v is negative", a.Scale)
			}
			return checkShapeAttr(a.Shape)
		},
		Shape: func(a *NormalAttrs, _ []Shape) ([]Shape, error) { return []Shape{Shape(a.Shape).Clone()}, nil },
		DType: func(a *NormalAttrs, _ []DType) ([]DType, error) { return randomDType(a.DType) },
		Kernel: func(env *Env, a *NormalAttrs, _, out []Value) error {
			return fillRandom(out[0], func() float64 { return a.Loc + a.Scale*env.Rand.NormFloat64() })
		},
		NoGrad: true, Random: true,
		Samples: []Sample{{Attrs: map[string]string{"shape": "(4, 2)"}}},
	})

	opCast = Register(Def[CastAttrs]{
		Name: "Cast", Kind: "elementwise", Aliases: []string{"cast"}, Doc: "Converts the elements to another dtype (integers truncate toward zero).",
		Inputs: []string{"data"},
		Shape:  func(_ *CastAttrs, in []Shape) ([]Shape, error) { return []Shape{in[0].Clone()}, nil },
		DType:  func(a *CastAttrs, _ []DType) ([]DType, error) { return knownDType(a.DType) },
		Kernel: func(_ *Env, a *CastAttrs, in, out []Value) error {
			if in[0].DType == out[0].DType {
				CopyData(out[0].Data, in[0].Data)
				return nil
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, in[0].Float64s()))
			return nil
		},
		Grad: func(f F, _ *CastAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.Cast(g[0], in[0].DType())}
		},
		Samples: []Sample{{Attrs: map[string]string{"dtype": "float64"}, Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"dtype": "int32"}, Inputs: []Shape{{4}}, NoGradCheck: true}},
	})

	opIdentity = Register(Def[NoAttrs]{
		Name: "_copy", Kind: "shape", Aliases: []string{"identity"}, Doc: "A copy of the input.",
		Inputs: []string{"data"},
		Shape:  func(_ *NoAttrs, in []Shape) ([]Shape, error) { return []Shape{in[0].Clone()}, nil },
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			CopyData(out[0].Data, in[0].Data)
			return nil
		},
		Grad:    func(f F, _ *NoAttrs, _, _, g []Tensor) []Tensor { return []Tensor{g[0]} },
		Samples: []Sample{{Inputs: []Shape{{2, 3}}}},
	})

	opBlockGrad = Register(Def[NoAttrs]{
		Name: "BlockGrad", Kind: "shape", Aliases: []string{"stop_gradient"}, Doc: "Passes the input through and stops gradients from flowing back into it.",
		Inputs: []string{"data"},
		Shape:  func(_ *NoAttrs, in []Shape) ([]Shape, error) { return []Shape{in[0].Clone()}, nil },
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			CopyData(out[0].Data, in[0].Data)
			return nil
		},
		NoGrad:  true,
		Samples: []Sample{{Inputs: []Shape{{2, 3}}}},
	})
}

func arangeStop(a *ArangeAttrs) float64 {
	if a.Stop.Valid {
		return a.Stop.Value
	}
	return a.Start
}

func arangeLen(a *ArangeAttrs) int {
	start, stop := a.Start, arangeStop(a)
	if !a.Stop.Valid {
		start = 0
	}
	return int(math.Ceil((stop - start) / a.Step))
}

func randomDType(d DType) ([]DType, error) {
	if d != Float32 && d != Float64 {
		return nil, Errorf("random values need a float dtype, got %v", d)
	}
	return []DType{d}, nil
}

// fillRandom fills v from draw, in order, on one goroutine (so a seed
// gives the same values whatever the number of cores).
func fillRandom(v Value, draw func() float64) error {
	switch d := v.Data.(type) {
	case []float32:
		for i := range d {
			d[i] = float32(draw())
		}
	case []float64:
		for i := range d {
			d[i] = draw()
		}
	default:
		return fmt.Errorf("random values need a float dtype, got %v", v.DType)
	}
	return nil
}

// Zeros returns an array of zeros of the given shape (float32 unless a dtype Attr is given).
func (f F) Zeros(shape Shape, attrs ...Attr) Tensor {
	return f.call1(opZeros, append([]Attr{{"shape", shape}}, attrs...))
}

// Ones returns an array of ones.
func (f F) Ones(shape Shape, attrs ...Attr) Tensor {
	return f.call1(opOnes, append([]Attr{{"shape", shape}}, attrs...))
}

// Full returns an array whose every element is value.
func (f F) Full(shape Shape, value float64, attrs ...Attr) Tensor {
	return f.call1(opFull, append([]Attr{{"shape", shape}, {"value", value}}, attrs...))
}

// Arange returns start, start+step, … below stop.
func (f F) Arange(start, stop, step float64, attrs ...Attr) Tensor {
	return f.call1(opArange, append([]Attr{{"start", start}, {"stop", stop}, {"step", step}}, attrs...))
}

// Eye returns the n x n identity matrix (attributes M and k change its shape and diagonal).
func (f F) Eye(n int, attrs ...Attr) Tensor {
	return f.call1(opEye, append([]Attr{{"N", n}}, attrs...))
}

// RandomUniform samples from the uniform distribution on [low, high).
func (f F) RandomUniform(low, high float64, shape Shape, attrs ...Attr) Tensor {
	return f.call1(opRandomUniform, append([]Attr{{"low", low}, {"high", high}, {"shape", shape}}, attrs...))
}

// RandomNormal samples from the normal distribution N(loc, scale²).
func (f F) RandomNormal(loc, scale float64, shape Shape, attrs ...Attr) Tensor {
	return f.call1(opRandomNormal, append([]Attr{{"loc", loc}, {"scale", scale}, {"shape", shape}}, attrs...))
}

// ZerosLike returns zeros with x's shape and dtype.
func (f F) ZerosLike(x Tensor) Tensor { return f.callA(opZerosLike, &NoAttrs{}, x) }

// OnesLike returns ones with x's shape and dtype.
func (f F) OnesLike(x Tensor) Tensor { return f.callA(opOnesLike, &NoAttrs{}, x) }

// Cast converts x to dtype.
func (f F) Cast(x Tensor, dtype DType) Tensor { return f.callA(opCast, &CastAttrs{DType: dtype}, x) }

// Identity returns a copy of x.
func (f F) Identity(x Tensor) Tensor { return f.callA(opIdentity, &NoAttrs{}, x) }

// BlockGrad returns x and stops gradients from flowing back through it.
func (f F) BlockGrad(x Tensor) Tensor { return f.callA(opBlockGrad, &NoAttrs{}, x) }

// Linspace returns num evenly spaced values from start to stop, stop
// included (attribute endpoint=False leaves it out; dtype sets the dtype).
func (f F) Linspace(start, stop float64, num int, attrs ...Attr) Tensor {
	return f.call1(opLinspace, append([]Attr{{"start", start}, {"stop", stop}, {"num", num}}, attrs...))
}

// ArangeLike returns 0, 1, 2, … with the shape and dtype of x (attributes
// start, step, repeat; axis gives a 1-D result as long as that axis).
func (f F) ArangeLike(x Tensor, attrs ...Attr) Tensor { return f.call1(opArangeLike, attrs, x) }
