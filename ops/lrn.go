package ops

import "math"

// LRN: local response normalisation across channels, as in AlexNet. Each
// value is divided by a power of the sum of squares of its neighbours
// along the channel axis (axis 1) of data (N, C, H, W):
//
//	norm = knorm + alpha/nsize * Σ x[c']² for c' in [c - nsize/2, c + nsize/2]
//	out  = x * norm**-beta
//
// norm is a hidden output, and the gradient is MXNet's _backward_LRN,
// computed from the data and norm.

// LRNAttrs are the attributes of LRN and _backward_LRN.
type LRNAttrs struct {
	Alpha float64 `attr:"alpha" default:"0.0001" doc:"the variance scaling"`
	Beta  float64 `attr:"beta" default:"0.75" doc:"the power"`
	Knorm float64 `attr:"knorm" default:"2.0" doc:"the constant added to the scaled sum"`
	Nsize int     `attr:"nsize" doc:"the odd width of the window along the channels"`
}

var opLRN, opLRNBackward *Op

func init() {
	opLRN = Register(Def[LRNAttrs]{
		Name: "LRN", Kind: "norm",
		Doc: "Local response normalisation of data (N, C, H, W) across channels: x * (knorm + alpha/nsize * " +
			"Σ x²)**-beta, the sum over the nsize channels centred on each (zeros beyond the edges). " +
			"The normaliser is a hidden output.",
		Inputs:         []string{"data"},
		Outputs:        2,
		VisibleOutputs: func(*LRNAttrs) int { return 1 },
		Check:          checkLRN,
		Shape: func(_ *LRNAttrs, in []Shape) ([]Shape, error) {
			if len(in[0]) != 4 {
				return nil, Errorf("data %v must be 4-D (N, C, H, W)", in[0])
			}
			return []Shape{in[0].Clone(), in[0].Clone()}, nil
		},
		DType: func(_ *LRNAttrs, in []DType) ([]DType, error) {
			d, err := floatData(in[0])
			if err != nil {
				return nil, err
			}
			return []DType{d[0], d[0]}, nil
		},
		Kernel: func(_ *Env, a *LRNAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			x := in[0].Float64s()
			norm := make([]float64, len(x))
			sq := make([]float64, len(x))
			for i, v := range x {
				sq[i] = v * v
			}
			a.chanSum(in[0].Shape, sq, norm)
			y := make([]float64, len(x))
			for i := range norm {
				norm[i] = a.Knorm + a.Alpha/float64(a.Nsize)*norm[i]
				y[i] = x[i] * math.Pow(norm[i], -a.Beta)
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, y))
			CopyData(out[1].Data, FromFloat64s(out[1].DType, norm))
			return nil
		},
		Grad: func(f F, a *LRNAttrs, in, out, g []Tensor) []Tensor {
			return []Tensor{f.lrnBackward(a, g[0], in[0], out[1])}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"nsize": "3"}, Inputs: []Shape{{2, 5, 3, 3}}},
			{Attrs: map[string]string{"nsize": "5", "alpha": "0.5", "beta": "0.6", "knorm": "1"}, Inputs: []Shape{{1, 4, 2, 3}}, Low: -2, High: 2},
		},
	})

	opLRNBackward = Register(Def[LRNAttrs]{
		Name: "_backward_LRN", Kind: "norm",
		Doc: "The gradient of LRN with respect to its data, from the output gradient, the data and LRN's normaliser: " +
			"ograd * norm**-beta - 2*beta*alpha/nsize * x * Σ(ograd * x * norm**(-beta-1)) over the channel window. All three are (N, C, H, W).",
		Inputs: []string{"ograd", "data", "norm"},
		Check:  checkLRN,
		Shape: func(_ *LRNAttrs, in []Shape) ([]Shape, error) {
			s, err := sameShape(in[0], in[1])
			if err == nil {
				s, err = sameShape(s, in[2])
			}
			if err != nil {
				return nil, err
			}
			if len(s) != 4 {
				return nil, Errorf("inputs %v must be 4-D (N, C, H, W)", s)
			}
			return []Shape{s}, nil
		},
		DType: func(_ *LRNAttrs, in []DType) ([]DType, error) { return floatData(in[1]) },
		Kernel: func(_ *Env, a *LRNAttrs, in, out []Value) error {
			if err := requireFloat(in...); err != nil {
				return err
			}
			g, x, norm := in[0].Float64s(), in[1].Float64s(), in[2].Float64s()
			t := make([]float64, len(x))
			for i := range t {
				t[i] = g[i] * x[i] * math.Pow(norm[i], -a.Beta-1)
			}
			s := make([]float64, len(x))
			a.chanSum(in[1].Shape, t, s)
			c := -2 * a.Beta * a.Alpha / float64(a.Nsize)
			for i := range s {
				s[i] = g[i]*math.Pow(norm[i], -a.Beta) + c*s[i]*x[i]
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, s))
			return nil
		},
		Samples: []Sample{{Attrs: map[string]string{"nsize": "3", "alpha": "0.3"}, Inputs: []Shape{{2, 4, 2, 2}, {2, 4, 2, 2}, {2, 4, 2, 2}}, Low: 0.5, High: 2}},
	})
}

func checkLRN(a *LRNAttrs) error {
	if a.Nsize < 1 || a.Nsize%2 != 1 {
		return Errorf("nsize=%d must be odd and positive", a.Nsize)
	}
	return nil
}

// chanSum writes into dst, for each element of src (N, C, H, W), the sum of
// src over the nsize channels centred on its own, the window clipped at
// the first and last channel.
func (a *LRNAttrs) chanSum(s Shape, src, dst []float64) {
	n, c, m := s[0], s[1], s[2]*s[3]
	h := a.Nsize / 2
	for b := 0; b < n; b++ {
		for k := 0; k < c; k++ {
			out := dst[(b*c+k)*m : (b*c+k+1)*m]
			clear(out)
			for j := max(k-h, 0); j <= min(k+h, c-1); j++ {
				in := src[(b*c+j)*m : (b*c+j+1)*m]
				for i := range out {
					out[i] += in[i]
				}
			}
		}
	}
}

// LRN normalises x (N, C, H, W) by its neighbours across channels: nsize
// is the odd window width; alpha, beta and knorm default to 0.0001, 0.75
// and 2 (ops.Attr{"beta", 0.5}).
func (f F) LRN(x Tensor, nsize int, attrs ...Attr) Tensor {
	return f.call1(opLRN, append([]Attr{{"nsize", nsize}}, attrs...), x)
}

func (f F) lrnBackward(a *LRNAttrs, g, x, norm Tensor) Tensor {
	return f.callA(opLRNBackward, a, g, x, norm)
}
