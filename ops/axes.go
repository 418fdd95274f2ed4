package ops

// Axis moves: SwapAxis (swapaxes), broadcast_axis (broadcast_axes) and
// diag, index-map ops (gather_map.go).

// SwapAxisAttrs are the attributes of SwapAxis.
type SwapAxisAttrs struct {
	Dim1 int `attr:"dim1" default:"0" doc:"the first axis to swap"`
	Dim2 int `attr:"dim2" default:"0" doc:"the second axis to swap"`
}

// axes returns the two axes, normalised against data.
func (a *SwapAxisAttrs) axes(data Shape) (int, int, error) {
	d1, err1 := NormAxis(a.Dim1, len(data))
	d2, err2 := NormAxis(a.Dim2, len(data))
	if err1 != nil || err2 != nil {
		return 0, 0, Errorf("dim1=%d, dim2=%d: data %v has %d dims", a.Dim1, a.Dim2, data, len(data))
	}
	return d1, d2, nil
}

// BroadcastAxisAttrs are the attributes of broadcast_axis.
type BroadcastAxisAttrs struct {
	Axis Tuple `attr:"axis" default:"()" doc:"the axes to broadcast along; each must have size 1"`
	Size Tuple `attr:"size" default:"()" doc:"the size each axis takes"`
}

// DiagAttrs are the attributes of diag.
type DiagAttrs struct {
	K     int `attr:"k" default:"0" doc:"the diagonal: 0 the main one, > 0 above it, < 0 below it"`
	Axis1 int `attr:"axis1" default:"0" doc:"the first axis of the 2-D planes the diagonal is taken from (data of 2 dims or more)"`
	Axis2 int `attr:"axis2" default:"1" doc:"the second axis of those planes"`
}

var opSwapAxis, opBroadcastAxis, opDiag *Op

func init() {
	opSwapAxis = registerGather(gatherDef[SwapAxisAttrs]{
		Name: "SwapAxis", Aliases: []string{"swapaxes"}, Kind: "shape",
		Doc:    "Interchanges two axes of the data (dim1 and dim2).",
		Inputs: []string{"data"},
		Shape: func(a *SwapAxisAttrs, in []Shape) (Shape, error) {
			d1, d2, err := a.axes(in[0])
			if err != nil {
				return nil, err
			}
			out := in[0].Clone()
			out[d1], out[d2] = out[d2], out[d1]
			return out, nil
		},
		Index: func(a *SwapAxisAttrs, in []Value) ([]int, error) {
			data := in[0].Shape
			d1, d2, err := a.axes(data)
			if err != nil {
				return nil, err
			}
			out := data.Clone()
			out[d1], out[d2] = out[d2], out[d1]
			return coordMap(out, data, func(oc, ic []int) bool {
				copy(ic, oc)
				ic[d1], ic[d2] = oc[d2], oc[d1]
				return true
			}), nil
		},
		Grad: func(f F, a *SwapAxisAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opSwapAxis, a, g[0])}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"dim1": "0", "dim2": "1"}, Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"dim1": "2", "dim2": "0"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"dim1": "-1", "dim2": "1"}, Inputs: []Shape{{2, 3, 4}}, DTypes: []DType{Int32}, NoGradCheck: true},
		},
	})

	opBroadcastAxis = registerGather(gatherDef[BroadcastAxisAttrs]{
		Name: "broadcast_axis", Aliases: []string{"broadcast_axes"}, Kind: "shape",
		Doc:    "Broadcasts the data along the given axes, each of size 1, to the given sizes.",
		Inputs: []string{"data"},
		Shape: func(a *BroadcastAxisAttrs, in []Shape) (Shape, error) {
			out, _, err := a.shape(in[0])
			return out, err
		},
		Index: func(a *BroadcastAxisAttrs, in []Value) ([]int, error) {
			out, axes, err := a.shape(in[0].Shape)
			if err != nil {
				return nil, err
			}
			return coordMap(out, in[0].Shape, func(oc, ic []int) bool {
				copy(ic, oc)
				for _, ax := range axes {
					ic[ax] = 0
				}
				return true
			}), nil
		},
		Grad: func(f F, a *BroadcastAxisAttrs, in, _, g []Tensor) []Tensor {
			_, axes, _ := a.shape(in[0].Shape())
			return []Tensor{f.Sum(g[0], Axis(axes...), Keepdims())}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"axis": "(1,)", "size": "(3,)"}, Inputs: []Shape{{2, 1}}},
			{Attrs: map[string]string{"axis": "(0, 2)", "size": "(2, 4)"}, Inputs: []Shape{{1, 3, 1}}},
		},
	})

	opDiag = registerGather(gatherDef[DiagAttrs]{
		Name: "diag", Kind: "shape",
		Doc: "With 1-D data, the square matrix with the data on its k-th diagonal and zeros elsewhere; " +
			"with more dims, the k-th diagonals of the planes of axes axis1 and axis2, along a last axis that replaces them.",
		Inputs: []string{"data"},
		Shape: func(a *DiagAttrs, in []Shape) (Shape, error) {
			out, _, _, err := a.shape(in[0])
			return out, err
		},
		Index: func(a *DiagAttrs, in []Value) ([]int, error) {
			data := in[0].Shape
			out, ax1, ax2, err := a.shape(data)
			if err != nil {
				return nil, err
			}
			if len(data) == 1 {
				return coordMap(out, data, func(oc, ic []int) bool {
					if oc[1]-oc[0] != a.K {
						return false
					}
					ic[0] = min(oc[0], oc[1])
					return true
				}), nil
			}
			r0, c0 := max(-a.K, 0), max(a.K, 0)
			return coordMap(out, data, func(oc, ic []int) bool {
				j := 0
				for d := range ic {
					if d != ax1 && d != ax2 {
						ic[d] = oc[j]
						j++
					}
				}
				t := oc[len(oc)-1]
				ic[ax1], ic[ax2] = r0+t, c0+t
				return true
			}), nil
		},
		Samples: []Sample{
			{Inputs: []Shape{{3}}},
			{Attrs: map[string]string{"k": "1"}, Inputs: []Shape{{3}}},
			{Attrs: map[string]string{"k": "-2"}, Inputs: []Shape{{2}}},
			{Inputs: []Shape{{3, 4}}},
			{Attrs: map[string]string{"k": "-1"}, Inputs: []Shape{{3, 4}}},
			{Attrs: map[string]string{"k": "1", "axis1": "2", "axis2": "0"}, Inputs: []Shape{{3, 2, 4}}},
		},
		BackSamples: []Sample{
			{Inputs: []Shape{{3}, {3, 4}}},
			{Attrs: map[string]string{"k": "1"}, Inputs: []Shape{{4, 4}, {3}}},
		},
	})
}

// shape checks the axes and returns the output's shape and the axes.
func (a *BroadcastAxisAttrs) shape(data Shape) (Shape, []int, error) {
	if len(a.Axis) != len(a.Size) {
		return nil, nil, Errorf("axis %v and size %v have different lengths", a.Axis, a.Size)
	}
	out := data.Clone()
	axes := make([]int, len(a.Axis))
	for i, ax := range a.Axis {
		n, err := NormAxis(ax, len(data))
		if err != nil {
			return nil, nil, Errorf("axis %v: %d is out of range for data %v", a.Axis, ax, data)
		}
		if data[n] != 1 && data[n] != 0 {
			return nil, nil, Errorf("axis %d of data %v has size %d; only axes of size 1 broadcast", n, data, data[n])
		}
		if a.Size[i] <= 0 {
			return nil, nil, Errorf("size %v: sizes must be positive", a.Size)
		}
		out[n], axes[i] = a.Size[i], n
	}
	return out, axes, nil
}

// shape returns the output's shape and the plane's axes (data of 2 dims
// or more).
func (a *DiagAttrs) shape(data Shape) (Shape, int, int, error) {
	switch len(data) {
	case 0:
		return nil, 0, 0, Errorf("data %v must have at least 1 dim", data)
	case 1:
		n := data[0]
		if n == 0 {
			return Shape{0, 0}, 0, 0, nil
		}
		n += abs(a.K)
		return Shape{n, n}, 0, 0, nil
	}
	ax1, err1 := NormAxis(a.Axis1, len(data))
	ax2, err2 := NormAxis(a.Axis2, len(data))
	if err1 != nil || err2 != nil || ax1 == ax2 {
		return nil, 0, 0, Errorf("axis1=%d and axis2=%d must be two different axes of data %v", a.Axis1, a.Axis2, data)
	}
	var out Shape
	for d, n := range data {
		if d != ax1 && d != ax2 {
			out = append(out, n)
		}
	}
	r, c := data[ax1], data[ax2]
	n := 0
	if r != 0 && c != 0 {
		if a.K >= 0 {
			n = max(min(r, c-a.K), 0)
		} else {
			n = max(min(r+a.K, c), 0)
		}
		if n == 0 {
			return nil, 0, 0, Errorf("k=%d: the planes %dx%d of data %v have no such diagonal", a.K, r, c, data)
		}
	}
	return append(out, n), ax1, ax2, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// SwapAxes interchanges axes dim1 and dim2 of x (MXNet's swapaxes).
func (f F) SwapAxes(x Tensor, dim1, dim2 int) Tensor {
	return f.callA(opSwapAxis, &SwapAxisAttrs{Dim1: dim1, Dim2: dim2}, x)
}

// BroadcastAxis broadcasts x along axes, each of size 1, to sizes
// (MXNet's broadcast_axis).
func (f F) BroadcastAxis(x Tensor, axes, sizes []int) Tensor {
	return f.callA(opBroadcastAxis, &BroadcastAxisAttrs{Axis: axes, Size: sizes}, x)
}

// Diag returns the k-th diagonal of x (of its planes of axes 0 and 1;
// ops.Attr{"axis1", …} and {"axis2", …} choose others), or, for 1-D x, the
// square matrix with x on its k-th diagonal.
func (f F) Diag(x Tensor, k int, attrs ...Attr) Tensor {
	return f.call1(opDiag, append([]Attr{{"k", k}}, attrs...), x)
}
