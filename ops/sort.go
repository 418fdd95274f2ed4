package ops

import "sort"

// Ordering: sort, argsort and topk along an axis (or over the flattened
// data when axis is None). Ties keep their order in the data.

// SortAttrs are the attributes of sort.
type SortAttrs struct {
	Axis     OptInt `attr:"axis" default:"-1" doc:"the axis to sort along; None sorts the flattened data"`
	IsAscend bool   `attr:"is_ascend" default:"True" doc:"ascending order; False: descending"`
}

// ArgSortAttrs are the attributes of argsort.
type ArgSortAttrs struct {
	Axis     OptInt `attr:"axis" default:"-1" doc:"the axis to sort along; None sorts the flattened data"`
	IsAscend bool   `attr:"is_ascend" default:"True" doc:"ascending order; False: descending"`
	DType    DType  `attr:"dtype" default:"float32" doc:"the dtype of the indices"`
}

// TopKAttrs are the attributes of topk.
type TopKAttrs struct {
	Axis     OptInt `attr:"axis" default:"-1" doc:"the axis to select along; None selects over the flattened data"`
	K        int    `attr:"k" default:"1" doc:"how many elements to select; below 1: all of them (a sort)"`
	RetTyp   string `attr:"ret_typ" default:"indices" enum:"value,indices,mask,both" doc:"what to return: the values, their indices, a mask of the selected elements, or values and indices"`
	IsAscend bool   `attr:"is_ascend" default:"False" doc:"select the smallest elements; False: the largest"`
	DType    DType  `attr:"dtype" default:"float32" doc:"the dtype of the indices"`
}

// sortLayout is the data seen as (outer, n, inner) rows sorted along n.
type sortLayout struct {
	outer, n, inner int
	out             Shape // the data's shape with the sorted axis made k long
	k               int
}

// sortRows returns the layout of data for axis (k elements kept; k < 1:
// all).
func sortRows(data Shape, axis OptInt, k int) (sortLayout, error) {
	var l sortLayout
	if !axis.Valid {
		l.outer, l.n, l.inner = 1, data.Size(), 1
		l.k = l.n
		if k >= 1 {
			l.k = min(k, l.n)
		}
		l.out = Shape{l.k}
		if k >= 1 && k > l.n && data.Known() {
			return l, Errorf("k=%d is more than the %d elements of data %v", k, l.n, data)
		}
		return l, nil
	}
	ax, err := NormAxis(axis.Value, len(data))
	if err != nil {
		return l, Errorf("axis=%d is out of range for data %v", axis.Value, data)
	}
	l.outer, l.n, l.inner = axisSplit(data, ax)
	l.k = l.n
	if k >= 1 {
		if data[ax] != 0 && k > data[ax] {
			return l, Errorf("k=%d is more than the %d elements of axis %d of data %v", k, data[ax], ax, data)
		}
		l.k = k
	}
	l.out = data.Clone()
	l.out[ax] = l.k
	return l, nil
}

// order returns, for each of the layout's k output positions of each row
// in row-major output order, the offset in the data of the element it
// holds: the rows sorted by value.
func (l sortLayout) order(data Value, ascend bool) []int {
	xs := data.Float64s()
	idx := make([]int, 0, l.outer*l.k*l.inner)
	perm := make([]int, l.n)
	rows := make([][]int, l.inner)
	for o := range l.outer {
		for i := range l.inner {
			base := o*l.n*l.inner + i
			for j := range perm {
				perm[j] = base + j*l.inner
			}
			sort.SliceStable(perm, func(a, b int) bool {
				if ascend {
					return xs[perm[a]] < xs[perm[b]]
				}
				return xs[perm[a]] > xs[perm[b]]
			})
			rows[i] = append(rows[i][:0], perm[:l.k]...)
		}
		for j := range l.k {
			for i := range l.inner {
				idx = append(idx, rows[i][j])
			}
		}
	}
	return idx
}

// positions turns data offsets of a sorted axis into indices along it.
func (l sortLayout) positions(offsets []int) []float64 {
	out := make([]float64, len(offsets))
	for i, off := range offsets {
		out[i] = float64((off / l.inner) % l.n)
	}
	return out
}

var opSort, opArgSort, opTopK, opBackwardTopK *Op

func init() {
	opSort = registerGather(gatherDef[SortAttrs]{
		Name: "sort", Kind: "shape",
		Doc:    "Sorts the data along axis (the flattened data when axis is None), ascending unless is_ascend is False.",
		Inputs: []string{"data"},
		Shape: func(a *SortAttrs, in []Shape) (Shape, error) {
			l, err := sortRows(in[0], a.Axis, 0)
			return l.out, err
		},
		Index: func(a *SortAttrs, in []Value) ([]int, error) {
			l, err := sortRows(in[0].Shape, a.Axis, 0)
			if err != nil {
				return nil, err
			}
			return l.order(in[0], a.IsAscend), nil
		},
		Samples: []Sample{
			{Inputs: []Shape{{3, 4}}},
			{Attrs: map[string]string{"axis": "0", "is_ascend": "False"}, Inputs: []Shape{{3, 2, 2}}},
			{Attrs: map[string]string{"axis": "None"}, Inputs: []Shape{{2, 3}}},
			{Inputs: []Shape{{5}}, DTypes: []DType{Int32}, Ints: map[int]int{0: 9}, NoGradCheck: true},
		},
		BackSamples: []Sample{
			{Attrs: map[string]string{"axis": "0"}, Inputs: []Shape{{3, 2}, {3, 2}}},
		},
	})

	opArgSort = Register(Def[ArgSortAttrs]{
		Name: "argsort", Kind: "shape",
		Doc:    "The indices that sort the data along axis (the flattened data when axis is None), as dtype.",
		Inputs: []string{"data"},
		Shape: func(a *ArgSortAttrs, in []Shape) ([]Shape, error) {
			l, err := sortRows(in[0], a.Axis, 0)
			return []Shape{l.out}, err
		},
		DType: func(a *ArgSortAttrs, _ []DType) ([]DType, error) { return []DType{a.DType}, nil },
		Kernel: func(_ *Env, a *ArgSortAttrs, in, out []Value) error {
			l, err := sortRows(in[0].Shape, a.Axis, 0)
			if err != nil {
				return err
			}
			CopyData(out[0].Data, FromFloat64s(a.DType, l.positions(l.order(in[0], a.IsAscend))))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Inputs: []Shape{{3, 4}}},
			{Attrs: map[string]string{"axis": "0", "is_ascend": "False", "dtype": "int32"}, Inputs: []Shape{{3, 2}}},
			{Attrs: map[string]string{"axis": "None", "dtype": "int64"}, Inputs: []Shape{{2, 3}}},
		},
	})

	opTopK = Register(Def[TopKAttrs]{
		Name: "topk", Kind: "shape",
		Doc: "The k largest elements along axis (smallest with is_ascend; the flattened data when axis is None): " +
			"ret_typ value gives them, indices their indices (as dtype), both the two, mask a 0/1 array shaped like the data marking them.",
		Inputs: []string{"data"},
		NumOutputs: func(a *TopKAttrs) int {
			if a.RetTyp == "both" {
				return 2
			}
			return 1
		},
		Shape: func(a *TopKAttrs, in []Shape) ([]Shape, error) {
			l, err := sortRows(in[0], a.Axis, a.K)
			switch {
			case err != nil:
				return nil, err
			case a.RetTyp == "mask":
				return []Shape{in[0].Clone()}, nil
			case a.RetTyp == "both":
				return []Shape{l.out, l.out.Clone()}, nil
			}
			return []Shape{l.out}, nil
		},
		DType: func(a *TopKAttrs, in []DType) ([]DType, error) {
			switch a.RetTyp {
			case "indices":
				return []DType{a.DType}, nil
			case "both":
				return []DType{in[0], a.DType}, nil
			}
			return []DType{in[0]}, nil
		},
		Kernel: func(_ *Env, a *TopKAttrs, in, out []Value) error {
			l, err := sortRows(in[0].Shape, a.Axis, a.K)
			if err != nil {
				return err
			}
			idx := l.order(in[0], a.IsAscend)
			switch a.RetTyp {
			case "value":
				return moveElems(out[0].Data, in[0].Data, idx, false)
			case "indices":
				CopyData(out[0].Data, FromFloat64s(a.DType, l.positions(idx)))
			case "both":
				if err := moveElems(out[0].Data, in[0].Data, idx, false); err != nil {
					return err
				}
				CopyData(out[1].Data, FromFloat64s(a.DType, l.positions(idx)))
			case "mask":
				mask := make([]float64, in[0].Shape.Size())
				for _, j := range idx {
					mask[j] = 1
				}
				CopyData(out[0].Data, FromFloat64s(out[0].DType, mask))
			}
			return nil
		},
		Grad: func(f F, a *TopKAttrs, in, _, g []Tensor) []Tensor {
			if a.RetTyp == "value" || a.RetTyp == "both" {
				return []Tensor{f.callA(opBackwardTopK, a, g[0], in[0])}
			}
			return []Tensor{f.ZerosLike(in[0])}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"k": "2", "ret_typ": "value"}, Inputs: []Shape{{3, 4}}},
			{Attrs: map[string]string{"k": "2", "ret_typ": "both", "axis": "0", "is_ascend": "True"}, Inputs: []Shape{{3, 2, 2}}},
			{Attrs: map[string]string{"k": "3", "ret_typ": "value", "axis": "None"}, Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"k": "2"}, Inputs: []Shape{{2, 5}}, NoGradCheck: true},
			{Attrs: map[string]string{"k": "2", "ret_typ": "mask"}, Inputs: []Shape{{2, 5}}, NoGradCheck: true},
			{Attrs: map[string]string{"k": "0", "ret_typ": "indices", "dtype": "int32"}, Inputs: []Shape{{4}}, NoGradCheck: true},
		},
	})

	opBackwardTopK = Register(Def[TopKAttrs]{
		Name: "_backward_topk", Kind: "shape",
		Doc:    "The gradient of topk's values with respect to its data: ograd added into zeros shaped like the data at the selected positions.",
		Inputs: []string{"ograd", "data"},
		Shape: func(a *TopKAttrs, in []Shape) ([]Shape, error) {
			l, err := sortRows(in[1], a.Axis, a.K)
			if err != nil {
				return nil, err
			}
			if err := checkOgrad(in[0], l.out, "topk's values"); err != nil {
				return nil, err
			}
			return []Shape{in[1].Clone()}, nil
		},
		DType: func(_ *TopKAttrs, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Kernel: func(_ *Env, a *TopKAttrs, in, out []Value) error {
			l, err := sortRows(in[1].Shape, a.Axis, a.K)
			if err != nil {
				return err
			}
			fillData(out[0].Data, 0)
			return scatterAddElems(out[0].Data, in[0].Data, l.order(in[1], a.IsAscend))
		},
		Samples: []Sample{
			{Attrs: map[string]string{"k": "2", "ret_typ": "value"}, Inputs: []Shape{{3, 2}, {3, 4}}},
		},
	})
}

// Sort sorts x along axis, ascending (ops.Attr{"is_ascend", false}:
// descending).
func (f F) Sort(x Tensor, axis int, attrs ...Attr) Tensor {
	return f.call1(opSort, append([]Attr{{"axis", axis}}, attrs...), x)
}

// ArgSort returns the indices that sort x along axis, as float32
// (ops.WithDType to change), ascending unless ops.Attr{"is_ascend", false}.
func (f F) ArgSort(x Tensor, axis int, attrs ...Attr) Tensor {
	return f.call1(opArgSort, append([]Attr{{"axis", axis}}, attrs...), x)
}

// TopK returns the k largest elements of x along axis and their indices
// (MXNet's topk with ret_typ both); ops.Attr{"is_ascend", true} selects
// the smallest.
func (f F) TopK(x Tensor, k, axis int, attrs ...Attr) (values, indices Tensor) {
	all := append([]Attr{{"k", k}, {"axis", axis}, {"ret_typ", "both"}}, attrs...)
	out := f.Invoke(opTopK, mustAttrs(opTopK, all), x)
	return out[0], out[1]
}
