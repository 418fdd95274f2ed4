package ops

// transpose permutes the dims of an array; its kernel gathers the
// elements through strided offsets (kernels.go).

// TransposeAttrs are the attributes of transpose.
type TransposeAttrs struct {
	Axes Tuple `attr:"axes" default:"()" doc:"the new order of the axes; () reverses them"`
}

// perm returns the permutation for ndim dims, normalising negative axes.
func (a *TransposeAttrs) perm(data Shape) ([]int, error) {
	nd := len(data)
	p := make([]int, nd)
	if len(a.Axes) == 0 {
		for i := range p {
			p[i] = nd - 1 - i
		}
		return p, nil
	}
	if len(a.Axes) != nd {
		return nil, Errorf("axes %v has %d entries but data %v has %d dims", a.Axes, len(a.Axes), data, nd)
	}
	seen := make([]bool, nd)
	for i, ax := range a.Axes {
		n, err := NormAxis(ax, nd)
		if err != nil || seen[n] {
			return nil, Errorf("axes %v is not a permutation of the %d dims of data %v", a.Axes, nd, data)
		}
		seen[n] = true
		p[i] = n
	}
	return p, nil
}

var opTranspose *Op

func init() {
	opTranspose = Register(Def[TransposeAttrs]{
		Name: "transpose", Kind: "shape", Doc: "Permutes the dims: output dim i is input dim axes[i]; with no axes the dims are reversed.",
		Inputs: []string{"data"},
		Shape: func(a *TransposeAttrs, in []Shape) ([]Shape, error) {
			p, err := a.perm(in[0])
			if err != nil {
				return nil, err
			}
			out := make(Shape, len(p))
			for i, ax := range p {
				out[i] = in[0][ax]
			}
			return []Shape{out}, nil
		},
		Kernel: func(_ *Env, a *TransposeAttrs, in, out []Value) error {
			p, err := a.perm(in[0].Shape)
			if err != nil {
				return err
			}
			st := in[0].Shape.Strides()
			strides := make([]int, len(p))
			for i, ax := range p {
				strides[i] = st[ax]
			}
			return gatherStrided(in[0], out[0], out[0].Shape, 0, strides)
		},
		Grad: func(f F, a *TransposeAttrs, in, _, g []Tensor) []Tensor {
			if len(a.Axes) == 0 {
				return []Tensor{f.Transpose(g[0])}
			}
			p, _ := a.perm(in[0].Shape())
			inv := make([]int, len(p))
			for i, ax := range p {
				inv[ax] = i
			}
			return []Tensor{f.Transpose(g[0], inv...)}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}}},
			{Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axes": "(1, 0, 2)"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axes": "(2, 0, 1)"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axes": "(0, -1, 1)"}, Inputs: []Shape{{2, 3, 4}}},
		},
	})
}

// Transpose permutes the dims of x: output dim i is input dim axes[i]. With
// no axes the dims are reversed.
func (f F) Transpose(x Tensor, axes ...int) Tensor {
	return f.callA(opTranspose, &TransposeAttrs{Axes: axes}, x)
}
