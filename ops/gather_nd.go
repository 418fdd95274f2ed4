package ops

// N-dimensional indexing: gather_nd (an index-map op, gather_map.go) and
// scatter_nd, its inverse. indices (M, Y…) holds M coordinates for each
// position of Y…: the first M axes of the data (of the result, for
// scatter_nd) are indexed, the rest are carried whole.

// ScatterNDAttrs are the attributes of scatter_nd.
type ScatterNDAttrs struct {
	Shape Tuple `attr:"shape" doc:"the shape of the result"`
}

var opGatherND, opScatterND *Op

func init() {
	opGatherND = registerGather(gatherDef[NoAttrs]{
		Name: "gather_nd", Kind: "shape",
		Doc: "Gathers from data at the coordinates in indices (M, Y…): the result, Y… + data.shape[M:], holds at y the slice " +
			"data[indices[0, y], …, indices[M-1, y]]. Negative coordinates count from the end.",
		Inputs: []string{"data", "indices"},
		Shape: func(_ *NoAttrs, in []Shape) (Shape, error) {
			return gatherNDShape(in[0], in[1])
		},
		Index: func(_ *NoAttrs, in []Value) ([]int, error) {
			return ndOffsets(in[0].Shape, in[1], "data")
		},
		Samples: []Sample{
			{Inputs: []Shape{{3, 4}, {2, 5}}, Ints: map[int]int{1: 3}},
			{Inputs: []Shape{{3, 4, 2}, {1, 2, 2}}, Ints: map[int]int{1: 3}},
			{Inputs: []Shape{{4, 3}, {1, 3}}, DTypes: []DType{Float32, Int32}, Ints: map[int]int{1: 4}},
		},
		BackSamples: []Sample{
			{Inputs: []Shape{{4}, {3, 2}, {2, 4}}, Ints: map[int]int{2: 2}},
		},
	})

	opScatterND = Register(Def[ScatterNDAttrs]{
		Name: "scatter_nd", Kind: "shape",
		Doc: "Scatters data into zeros of the given shape at the coordinates in indices (M, Y…): the result's slice at " +
			"indices[:, y] is data[y] (data is Y… + shape[M:]). Where coordinates repeat, which value lands is unspecified, as in MXNet.",
		Inputs: []string{"data", "indices"},
		Shape: func(a *ScatterNDAttrs, in []Shape) ([]Shape, error) {
			out := Shape(a.Shape).Clone()
			want, err := gatherNDShape(out, in[1])
			if err != nil {
				return nil, err
			}
			if err := checkOgrad(in[0], want, "scatter_nd's data"); err != nil {
				return nil, Errorf("data %v should be %v: indices %v into shape %v", in[0], want, in[1], a.Shape)
			}
			return []Shape{out}, nil
		},
		DType: func(_ *ScatterNDAttrs, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Kernel: func(_ *Env, a *ScatterNDAttrs, in, out []Value) error {
			idx, err := ndOffsets(out[0].Shape, in[1], "shape")
			if err != nil {
				return err
			}
			ClearData(out[0].Data)
			return moveElems(out[0].Data, in[0].Data, idx, true)
		},
		Grad: func(f F, _ *ScatterNDAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.GatherND(g[0], in[1]), nil}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"shape": "(3, 4)"}, Inputs: []Shape{{1, 4}, {1, 1}}, Ints: map[int]int{1: 3}},
			{Attrs: map[string]string{"shape": "(5,)"}, Inputs: []Shape{{1}, {1, 1}}, Ints: map[int]int{1: 5}},
			// Random coordinates may repeat, where the gradient of the lost value is not 0.
			{Attrs: map[string]string{"shape": "(2, 3)"}, Inputs: []Shape{{2}, {2, 2}}, DTypes: []DType{Float32, Int32}, Ints: map[int]int{1: 2}, NoGradCheck: true},
		},
	})
}

// gatherNDShape is indices.shape[1:] + data.shape[M:].
func gatherNDShape(data, indices Shape) (Shape, error) {
	if len(indices) < 1 {
		return nil, Errorf("indices %v must have at least 1 dim (M, …)", indices)
	}
	m := indices[0]
	if m == 0 {
		return nil, nil
	}
	if m > len(data) {
		return nil, Errorf("indices %v index %d axes but data %v has %d", indices, m, data, len(data))
	}
	out := append(indices[1:].Clone(), data[m:]...)
	return out, nil
}

// ndOffsets lists, for each element of the gathered result, its offset in
// an array of shape data.
func ndOffsets(data Shape, indices Value, what string) ([]int, error) {
	if _, err := gatherNDShape(data, indices.Shape); err != nil {
		return nil, err
	}
	m := indices.Shape[0]
	ys := indices.Shape.Size() / max(m, 1)
	inner := data[m:].Size()
	st := data.Strides()
	vals := indexValues(indices)
	idx := make([]int, 0, ys*inner)
	for y := range ys {
		base := 0
		for k := range m {
			j := vals[k*ys+y]
			if j < 0 {
				j += data[k]
			}
			if j < 0 || j >= data[k] {
				return nil, Errorf("indices: coordinate %d is out of range for axis %d (size %d) of %s %v", vals[k*ys+y], k, data[k], what, data)
			}
			base += j * st[k]
		}
		for i := range inner {
			idx = append(idx, base+i)
		}
	}
	return idx, nil
}

// GatherND gathers the slices of x at the coordinates in indices (M, Y…).
func (f F) GatherND(x, indices Tensor) Tensor { return f.callA(opGatherND, &NoAttrs{}, x, indices) }

// ScatterND scatters data into zeros of shape at the coordinates in
// indices (M, Y…).
func (f F) ScatterND(data, indices Tensor, shape ...int) Tensor {
	return f.callA(opScatterND, &ScatterNDAttrs{Shape: shape}, data, indices)
}
