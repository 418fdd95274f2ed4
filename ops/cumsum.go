package ops

// cumsum: the running sum along an axis, or over the flattened data.

// CumsumAttrs are the attributes of cumsum.
type CumsumAttrs struct {
	Axis  OptInt `attr:"axis" default:"None" doc:"the axis summed along; None sums over the flattened data, giving a 1-D result"`
	DType DType  `attr:"dtype" default:"None" doc:"the dtype of the result; None keeps the data's (bool gives int64)"`
}

var opCumsum *Op

func init() {
	opCumsum = Register(Def[CumsumAttrs]{
		Name: "_np_cumsum", Aliases: []string{"cumsum"}, Kind: "reduce",
		Doc: "The cumulative sum of data along axis: output[..., i, ...] = Σ data[..., j, ...] for j <= i. " +
			"With axis None the data is flattened first and the result is 1-D.",
		Inputs: []string{"data"},
		Shape: func(a *CumsumAttrs, in []Shape) ([]Shape, error) {
			d := in[0]
			if !a.Axis.Valid {
				if !d.Known() {
					return []Shape{{0}}, nil
				}
				return []Shape{{d.Size()}}, nil
			}
			if _, err := NormAxis(a.Axis.Value, len(d)); err != nil {
				return nil, Errorf("axis %d is out of range for data of shape %v (%d dims)", a.Axis.Value, d, len(d))
			}
			return []Shape{d.Clone()}, nil
		},
		DType: func(a *CumsumAttrs, in []DType) ([]DType, error) {
			switch {
			case a.DType != Unknown:
				return []DType{a.DType}, nil
			case in[0] == Bool:
				return []DType{Int64}, nil
			}
			return []DType{in[0]}, nil
		},
		Kernel: func(_ *Env, a *CumsumAttrs, in, out []Value) error {
			x := in[0].Float64s()
			outer, n, inner := 1, len(x), 1
			if a.Axis.Valid {
				ax, err := NormAxis(a.Axis.Value, len(in[0].Shape))
				if err != nil {
					return err
				}
				outer, n, inner = axisSplit(in[0].Shape, ax)
			}
			for o := 0; o < outer; o++ {
				for i := 0; i < inner; i++ {
					base := o*n*inner + i
					for k := 1; k < n; k++ {
						x[base+k*inner] += x[base+(k-1)*inner]
					}
				}
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, x))
			return nil
		},
		// The gradient is the running sum of ograd taken from the end.
		Grad: func(f F, a *CumsumAttrs, in, _, g []Tensor) []Tensor {
			x, ax := in[0], 0
			if a.Axis.Valid {
				ax = a.Axis.Value
			}
			d := f.Flip(f.Cumsum(f.Flip(g[0], ax), Attr{"axis", ax}), ax)
			if !a.Axis.Valid {
				d = f.ReshapeLike(d, x)
			}
			if d.DType() != x.DType() {
				d = f.Cast(d, x.DType())
			}
			return []Tensor{d}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"axis": "1"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axis": "-3"}, Inputs: []Shape{{3, 2, 2}}},
			{Attrs: map[string]string{"axis": "0", "dtype": "float64"}, Inputs: []Shape{{4, 2}}, DTypes: []DType{Float32}},
			{Attrs: map[string]string{"axis": "0"}, Inputs: []Shape{{5}}, DTypes: []DType{Int32}, NoGradCheck: true},
		},
	})
}

// Cumsum returns the running sum of x along ops.Attr{"axis", n}, or over
// the flattened x (a 1-D result) when no axis is given; ops.WithDType sets
// the result's dtype.
func (f F) Cumsum(x Tensor, attrs ...Attr) Tensor { return f.call1(opCumsum, attrs, x) }
