package ops

import "fmt"

// The casts of automatic mixed precision: amp_cast and amp_multicast, which
// MXNet's AMP pass inserts into a graph and which therefore appear in the
// models it exports. Unlike Cast they convert floating-point inputs only
// and pass every other dtype through unchanged.

// AMPCastAttrs are the attributes of amp_cast.
type AMPCastAttrs struct {
	DType DType `attr:"dtype" doc:"the dtype floating-point inputs are converted to"`
}

// AMPMultiCastAttrs are the attributes of amp_multicast.
type AMPMultiCastAttrs struct {
	NumOutputs int  `attr:"num_outputs" doc:"the number of inputs (and of outputs)"`
	CastNarrow bool `attr:"cast_narrow" default:"False" doc:"convert to the narrowest floating-point dtype among the inputs instead of the widest"`
}

var opAMPCast, opAMPMultiCast *Op

func init() {
	opAMPCast = Register(Def[AMPCastAttrs]{
		Name: "amp_cast", Kind: "elementwise",
		Doc: "Converts a floating-point input to dtype and passes any other input through unchanged (the cast " +
			"of automatic mixed precision). The gradient is converted back to the input's dtype.",
		Inputs: []string{"data"},
		Shape:  func(_ *AMPCastAttrs, in []Shape) ([]Shape, error) { return []Shape{in[0].Clone()}, nil },
		DType: func(a *AMPCastAttrs, in []DType) ([]DType, error) {
			if !in[0].IsFloat() {
				return []DType{in[0]}, nil
			}
			return knownDType(a.DType)
		},
		Kernel: func(_ *Env, _ *AMPCastAttrs, in, out []Value) error {
			castInto(out[0], in[0])
			return nil
		},
		Grad: func(f F, _ *AMPCastAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opAMPCast, &AMPCastAttrs{DType: in[0].DType()}, g[0])}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"dtype": "float64"}, Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"dtype": "float32"}, Inputs: []Shape{{4}}, DTypes: []DType{Float64}, NoGradCheck: true}, // float32 rounding spoils the difference
			{Attrs: map[string]string{"dtype": "float64"}, Inputs: []Shape{{4}}, DTypes: []DType{Int32}, NoGradCheck: true},
		},
	})

	opAMPMultiCast = Register(Def[AMPMultiCastAttrs]{
		Name: "amp_multicast", Kind: "elementwise",
		Doc: "Converts its floating-point inputs to one dtype, each to its own output: float32 when any input is " +
			"float32, otherwise the first input's dtype (with cast_narrow: float16 when any input is float16, " +
			"otherwise float32). Other inputs pass through unchanged. The gradients are converted back to the " +
			"inputs' dtypes.",
		InputNames: func(a *AMPMultiCastAttrs) []string {
			names := make([]string, max(a.NumOutputs, 0))
			for i := range names {
				names[i] = fmt.Sprintf("data%d", i)
			}
			return names
		},
		NumOutputs: func(a *AMPMultiCastAttrs) int { return max(a.NumOutputs, 1) },
		Check: func(a *AMPMultiCastAttrs) error {
			if a.NumOutputs < 1 {
				return Errorf("num_outputs=%d: at least one input is needed", a.NumOutputs)
			}
			return nil
		},
		Shape: func(_ *AMPMultiCastAttrs, in []Shape) ([]Shape, error) {
			out := make([]Shape, len(in))
			for i, s := range in {
				out[i] = s.Clone()
			}
			return out, nil
		},
		DType: func(a *AMPMultiCastAttrs, in []DType) ([]DType, error) {
			target := ampMultiCastDType(a, in)
			out := make([]DType, len(in))
			for i, d := range in {
				out[i] = d
				if d.IsFloat() && d != Float64 {
					if target == Unknown {
						out[i] = Unknown
						continue
					}
					if !target.Supported() {
						return nil, Errorf("input %d would become %v, which has no kernels", i, target)
					}
					out[i] = target
				}
			}
			return out, nil
		},
		Kernel: func(_ *Env, _ *AMPMultiCastAttrs, in, out []Value) error {
			for i := range in {
				castInto(out[i], in[i])
			}
			return nil
		},
		Grad: func(f F, _ *AMPMultiCastAttrs, in, _, g []Tensor) []Tensor {
			gs := make([]Tensor, len(in))
			for i := range gs {
				gs[i] = f.callA(opAMPCast, &AMPCastAttrs{DType: in[i].DType()}, g[i])
			}
			return gs
		},
		Samples: []Sample{
			{Attrs: map[string]string{"num_outputs": "2"}, Inputs: []Shape{{2, 3}, {4}}},
			{Attrs: map[string]string{"num_outputs": "3"}, Inputs: []Shape{{2}, {3}, {2, 2}}, DTypes: []DType{Float64, Float32, Float64}},
			{Attrs: map[string]string{"num_outputs": "1", "cast_narrow": "True"}, Inputs: []Shape{{3}}},
		},
	})
}

// ampMultiCastDType is MXNet's target of amp_multicast: float32 if any
// input is (float16, with cast_narrow, if any input is), otherwise the
// first input's dtype (float32, with cast_narrow).
func ampMultiCastDType(a *AMPMultiCastAttrs, in []DType) DType {
	if len(in) == 0 {
		return Unknown
	}
	target := in[0]
	if a.CastNarrow {
		target = Float32
	}
	for _, d := range in {
		switch {
		case !a.CastNarrow && d == Float32:
			target = Float32
		case a.CastNarrow && d == Float16:
			target = Float16
		}
	}
	return target
}

// castInto converts in's elements into out's dtype.
func castInto(out, in Value) {
	if in.DType == out.DType {
		CopyData(out.Data, in.Data)
		return
	}
	CopyData(out.Data, FromFloat64s(out.DType, in.Float64s()))
}

// AMPCast converts x to dtype if x is floating-point and returns it
// unchanged otherwise.
func (f F) AMPCast(x Tensor, dtype DType) Tensor {
	return f.callA(opAMPCast, &AMPCastAttrs{DType: dtype}, x)
}

// AMPMultiCast converts the floating-point inputs to one dtype, float32
// when any of them is float32 (attribute cast_narrow: the narrowest).
func (f F) AMPMultiCast(xs []Tensor, attrs ...Attr) []Tensor {
	all := append([]Attr{{"num_outputs", len(xs)}}, attrs...)
	return f.Invoke(opAMPMultiCast, mustAttrs(opAMPMultiCast, all), xs...)
}
