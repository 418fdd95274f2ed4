package ops

import "fmt"

// Index ops: take, pick, one_hot and where. Index inputs may have any
// dtype (MXNet passes them as float32); their values are read as integers
// by truncation toward zero, as a C cast does.

// TakeAttrs are the attributes of take (and of its gradient, _backward_take).
type TakeAttrs struct {
	Axis int    `attr:"axis" default:"0" doc:"the axis of a to take along; negative counts from the end"`
	Mode string `attr:"mode" default:"clip" enum:"raise,wrap,clip" doc:"out-of-range indices: raise an error, wrap around, or clip to the ends"`
}

// PickAttrs are the attributes of pick (and of its gradient, _backward_pick).
type PickAttrs struct {
	Axis     OptInt `attr:"axis" default:"-1" doc:"the axis to pick along"`
	Keepdims bool   `attr:"keepdims" default:"False" doc:"keep the picked axis as a dim of size 1"`
	Mode     string `attr:"mode" default:"clip" enum:"wrap,clip" doc:"out-of-range indices: wrap around or clip to the ends"`
}

// OneHotAttrs are the attributes of one_hot.
type OneHotAttrs struct {
	Depth    int     `attr:"depth" doc:"the length of the one-hot axis"`
	OnValue  float64 `attr:"on_value" default:"1.0" doc:"the value at the index"`
	OffValue float64 `attr:"off_value" default:"0.0" doc:"the value elsewhere"`
	DType    DType   `attr:"dtype" default:"float32" doc:"the dtype of the result"`
}

// resolveIndex turns an index value into a position in [0, n) by the mode.
func resolveIndex(v float64, n int, mode string) (int, error) {
	j := int(v)
	switch mode {
	case "wrap":
		j %= n
		if j < 0 {
			j += n
		}
	case "raise":
		if j < 0 || j >= n {
			return 0, fmt.Errorf("index %v is out of range [0, %d) (mode=raise)", v, n)
		}
	default: // clip
		j = min(max(j, 0), n-1)
	}
	return j, nil
}

// takeShape is a.shape[:axis] + indices.shape + a.shape[axis+1:].
func (a *TakeAttrs) shape(data, indices Shape) (Shape, int, error) {
	ax, err := NormAxis(a.Axis, len(data))
	if err != nil {
		return nil, 0, Errorf("axis=%d is out of range for a %v", a.Axis, data)
	}
	out := append(append(data[:ax].Clone(), indices...), data[ax+1:]...)
	return out, ax, nil
}

// offsets lists, for each element of take's result, the offset of its
// source element in a.
func (a *TakeAttrs) offsets(data Shape, indices Value) ([]int, error) {
	ax, err := NormAxis(a.Axis, len(data))
	if err != nil {
		return nil, err
	}
	outer, n, inner := axisSplit(data, ax)
	ids := indices.Float64s()
	rows := make([]int, len(ids))
	for j, v := range ids {
		if rows[j], err = resolveIndex(v, n, a.Mode); err != nil {
			return nil, fmt.Errorf("indices: %v on axis %d of a %v", err, ax, data)
		}
	}
	idx := make([]int, 0, outer*len(ids)*inner)
	for o := 0; o < outer; o++ {
		for _, r := range rows {
			base := (o*n + r) * inner
			for i := 0; i < inner; i++ {
				idx = append(idx, base+i)
			}
		}
	}
	return idx, nil
}

// shape is data's shape without axis (or with it as 1 when keepdims).
func (a *PickAttrs) shape(data Shape) (Shape, int, error) {
	if !a.Axis.Valid {
		return nil, 0, Errorf("axis=None is not supported by pick; give an axis")
	}
	ax, err := NormAxis(a.Axis.Value, len(data))
	if err != nil {
		return nil, 0, Errorf("axis=%v is out of range for data %v", a.Axis, data)
	}
	out := data[:ax].Clone()
	if a.Keepdims {
		out = append(out, 1)
	}
	out = append(out, data[ax+1:]...)
	if len(out) == 0 {
		out = Shape{1}
	}
	return out, ax, nil
}

// offsets lists, for each picked element, its offset in data.
func (a *PickAttrs) offsets(data Shape, index Value) ([]int, error) {
	_, ax, err := a.shape(data)
	if err != nil {
		return nil, err
	}
	_, n, inner := axisSplit(data, ax)
	ids := index.Float64s()
	idx := make([]int, len(ids))
	for k, v := range ids {
		j, _ := resolveIndex(v, n, a.Mode)
		o, i := k/inner, k%inner
		idx[k] = (o*n+j)*inner + i
	}
	return idx, nil
}

// whereLoop picks x[i] where the condition holds and y[i] elsewhere;
// condition element i/inner governs element i.
func whereLoop[T any](out, x []T, yd any, cond []float64, inner int) error {
	y, ok := yd.([]T)
	if !ok {
		return fmt.Errorf("x is %T but y is %T", x, yd)
	}
	for i := range out {
		if cond[i/inner] != 0 {
			out[i] = x[i]
		} else {
			out[i] = y[i]
		}
	}
	return nil
}

func whereKernel(cond, x, y, out Value) error {
	c := cond.Float64s()
	inner := max(x.Shape.Size()/max(len(c), 1), 1)
	switch o := out.Data.(type) {
	case []float32:
		return whereLoop(o, x.Data.([]float32), y.Data, c, inner)
	case []float64:
		return whereLoop(o, x.Data.([]float64), y.Data, c, inner)
	case []uint8:
		return whereLoop(o, x.Data.([]uint8), y.Data, c, inner)
	case []int8:
		return whereLoop(o, x.Data.([]int8), y.Data, c, inner)
	case []int32:
		return whereLoop(o, x.Data.([]int32), y.Data, c, inner)
	case []int64:
		return whereLoop(o, x.Data.([]int64), y.Data, c, inner)
	case []bool:
		return whereLoop(o, x.Data.([]bool), y.Data, c, inner)
	}
	return fmt.Errorf("dtype %v is not supported", x.DType)
}

// checkOgrad checks that ograd has the shape the forward op gives.
func checkOgrad(ograd, want Shape, what string) error {
	if len(ograd) != len(want) {
		return Errorf("ograd %v does not have the shape %v of %s", ograd, want, what)
	}
	for i := range want {
		if _, ok := mergeDim(ograd[i], want[i]); !ok {
			return Errorf("ograd %v does not have the shape %v of %s", ograd, want, what)
		}
	}
	return nil
}

var opTake, opBackwardTake, opPick, opBackwardPick, opOneHot, opWhere, opBatchTake *Op

func init() {
	opTake = Register(Def[TakeAttrs]{
		Name: "take", Kind: "shape", Doc: "Takes the slices of a at the given indices along axis: the result has shape a.shape[:axis] + indices.shape + a.shape[axis+1:]. Indices may have any dtype.",
		Inputs: []string{"a", "indices"},
		Shape: func(a *TakeAttrs, in []Shape) ([]Shape, error) {
			s, _, err := a.shape(in[0], in[1])
			return []Shape{s}, err
		},
		DType: func(_ *TakeAttrs, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Kernel: func(_ *Env, a *TakeAttrs, in, out []Value) error {
			idx, err := a.offsets(in[0].Shape, in[1])
			if err != nil {
				return err
			}
			return moveElems(out[0].Data, in[0].Data, idx, false)
		},
		Grad: func(f F, a *TakeAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opBackwardTake, a, g[0], in[1], in[0]), nil}
		},
		Samples: []Sample{
			{Inputs: []Shape{{4, 3}, {2}}, Ints: map[int]int{1: 4}},
			{Attrs: map[string]string{"axis": "1"}, Inputs: []Shape{{2, 4}, {2, 3}}, Ints: map[int]int{1: 4}},
			{Attrs: map[string]string{"mode": "wrap"}, Inputs: []Shape{{3, 2}, {6}}, Ints: map[int]int{1: 8}},
			{Attrs: map[string]string{"axis": "-1", "mode": "clip"}, Inputs: []Shape{{2, 3}, {4}}, Ints: map[int]int{1: 5}},
			{Attrs: map[string]string{"mode": "raise"}, Inputs: []Shape{{3, 2}, {2}}, Ints: map[int]int{1: 3}},
			{Inputs: []Shape{{4, 3}, {2, 2}}, DTypes: []DType{Float32, Int32}, Ints: map[int]int{1: 4}},
		},
	})

	opBackwardTake = Register(Def[TakeAttrs]{
		Name: "_backward_take", Kind: "shape", Doc: "The gradient of take with respect to a: ograd added into zeros shaped like a at the taken positions (repeated indices add up).",
		Inputs: []string{"ograd", "indices", "a"},
		Shape: func(a *TakeAttrs, in []Shape) ([]Shape, error) {
			want, _, err := a.shape(in[2], in[1])
			if err != nil {
				return nil, err
			}
			if err := checkOgrad(in[0], want, "take's result"); err != nil {
				return nil, err
			}
			return []Shape{in[2].Clone()}, nil
		},
		DType: func(_ *TakeAttrs, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Kernel: func(_ *Env, a *TakeAttrs, in, out []Value) error {
			idx, err := a.offsets(in[2].Shape, in[1])
			if err != nil {
				return err
			}
			fillData(out[0].Data, 0)
			return scatterAddElems(out[0].Data, in[0].Data, idx)
		},
		Grad: func(f F, a *TakeAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opTake, a, g[0], in[1]), nil, nil}
		},
		Samples: []Sample{
			{Inputs: []Shape{{3, 3}, {3}, {4, 3}}, Ints: map[int]int{1: 4}},
			{Attrs: map[string]string{"axis": "1", "mode": "wrap"}, Inputs: []Shape{{2, 3}, {3}, {2, 2}}, Ints: map[int]int{1: 5}},
		},
	})

	opBatchTake = Register(Def[NoAttrs]{
		Name: "batch_take", Kind: "shape",
		Doc: "MXNet's older pick along the last axis: for a of at least 2 dims, whose rows (all dims but the last, " +
			"flattened) number as many as indices has elements, output[i] = a[i, indices[i]], with the shape of " +
			"indices. Indices out of range are clipped to it; they may have any dtype. MXNet defines no gradient; it is taken as zero.",
		Inputs: []string{"a", "indices"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			a, idx := in[0], in[1]
			if len(a) < 2 {
				return nil, Errorf("a %v must have at least 2 dims", a)
			}
			if a.Known() && idx.Known() && a.Size()/a[len(a)-1] != idx.Size() {
				return nil, Errorf("indices %v must have one element per row of a %v (%d)", idx, a, a.Size()/a[len(a)-1])
			}
			return []Shape{idx.Clone()}, nil
		},
		DType: func(_ *NoAttrs, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			m := in[0].Shape[len(in[0].Shape)-1]
			ids := in[1].Float64s()
			offs := make([]int, len(ids))
			for i, v := range ids {
				offs[i] = i*m + min(max(int(v), 0), m-1)
			}
			return moveElems(out[0].Data, in[0].Data, offs, false)
		},
		NoGrad: true,
		Samples: []Sample{
			{Inputs: []Shape{{3, 2}, {3}}, Ints: map[int]int{1: 2}},
			{Inputs: []Shape{{2, 3, 4}, {6}}, Ints: map[int]int{1: 4}},
		},
	})

	opPick = Register(Def[PickAttrs]{
		Name: "pick", Kind: "shape", Aliases: []string{"choose_element_0index"}, Doc: "Picks one element along axis for each position of index, whose shape is data's without axis (or with it as 1 when keepdims).",
		Inputs: []string{"data", "index"},
		Shape: func(a *PickAttrs, in []Shape) ([]Shape, error) {
			out, ax, err := a.shape(in[0])
			if err != nil {
				return nil, err
			}
			if err := checkPickIndex(in[1], out, in[0], ax); err != nil {
				return nil, err
			}
			for i := range out { // fill unknown dims of index and of data from each other
				out[i], _ = mergeDim(out[i], in[1][i])
				in[1][i] = out[i]
			}
			if len(in[0]) > 0 {
				j := 0
				for d := range in[0] {
					if d == ax {
						if a.Keepdims {
							j++
						}
						continue
					}
					in[0][d] = out[j]
					j++
				}
			}
			return []Shape{out}, nil
		},
		DType: func(_ *PickAttrs, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Kernel: func(_ *Env, a *PickAttrs, in, out []Value) error {
			idx, err := a.offsets(in[0].Shape, in[1])
			if err != nil {
				return err
			}
			return moveElems(out[0].Data, in[0].Data, idx, false)
		},
		Grad: func(f F, a *PickAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opBackwardPick, a, g[0], in[1], in[0]), nil}
		},
		Samples: []Sample{
			{Inputs: []Shape{{3, 4}, {3}}, Ints: map[int]int{1: 4}},
			{Attrs: map[string]string{"axis": "0", "keepdims": "True"}, Inputs: []Shape{{3, 4}, {1, 4}}, Ints: map[int]int{1: 3}},
			{Attrs: map[string]string{"axis": "1", "mode": "wrap"}, Inputs: []Shape{{2, 3, 2}, {2, 2}}, Ints: map[int]int{1: 7}},
			{Attrs: map[string]string{"axis": "0"}, Inputs: []Shape{{5}, {1}}, Ints: map[int]int{1: 6}},
		},
	})

	opBackwardPick = Register(Def[PickAttrs]{
		Name: "_backward_pick", Kind: "shape", Doc: "The gradient of pick with respect to data: ograd placed at the picked positions of zeros shaped like data.",
		Inputs: []string{"ograd", "index", "data"},
		Shape: func(a *PickAttrs, in []Shape) ([]Shape, error) {
			want, _, err := a.shape(in[2])
			if err != nil {
				return nil, err
			}
			if err := checkOgrad(in[0], want, "pick's result"); err != nil {
				return nil, err
			}
			return []Shape{in[2].Clone()}, nil
		},
		DType: func(_ *PickAttrs, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Kernel: func(_ *Env, a *PickAttrs, in, out []Value) error {
			idx, err := a.offsets(in[2].Shape, in[1])
			if err != nil {
				return err
			}
			fillData(out[0].Data, 0)
			return scatterAddElems(out[0].Data, in[0].Data, idx)
		},
		Grad: func(f F, a *PickAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opPick, a, g[0], in[1]), nil, nil}
		},
		Samples: []Sample{
			{Inputs: []Shape{{3}, {3}, {3, 4}}, Ints: map[int]int{1: 4}},
			{Attrs: map[string]string{"axis": "0", "keepdims": "True", "mode": "wrap"}, Inputs: []Shape{{1, 2}, {1, 2}, {3, 2}}, Ints: map[int]int{1: 5}},
		},
	})

	opOneHot = Register(Def[OneHotAttrs]{
		Name: "one_hot", Kind: "shape", Doc: "Puts on_value at each index along a new last axis of length depth, off_value elsewhere; indices outside [0, depth) give a row of off_value.",
		Inputs: []string{"indices"},
		Check: func(a *OneHotAttrs) error {
			if a.Depth <= 0 {
				return Errorf("depth=%d must be positive", a.Depth)
			}
			if !a.DType.Supported() {
				return Errorf("dtype %v has no kernels", a.DType)
			}
			return nil
		},
		Shape: func(a *OneHotAttrs, in []Shape) ([]Shape, error) {
			return []Shape{append(in[0].Clone(), a.Depth)}, nil
		},
		DType: func(a *OneHotAttrs, _ []DType) ([]DType, error) { return []DType{a.DType}, nil },
		Kernel: func(_ *Env, a *OneHotAttrs, in, out []Value) error {
			ids := in[0].Float64s()
			xs := make([]float64, len(ids)*a.Depth)
			for i, v := range ids {
				row := xs[i*a.Depth : (i+1)*a.Depth]
				for k := range row {
					row[k] = a.OffValue
				}
				if j := int(v); j >= 0 && j < a.Depth {
					row[j] = a.OnValue
				}
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, xs))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Attrs: map[string]string{"depth": "4"}, Inputs: []Shape{{3}}, Ints: map[int]int{0: 5}},
			{Attrs: map[string]string{"depth": "3", "on_value": "2.5", "off_value": "-1", "dtype": "float64"}, Inputs: []Shape{{2, 2}}, Ints: map[int]int{0: 3}},
			{Attrs: map[string]string{"depth": "3", "dtype": "int32"}, Inputs: []Shape{{4}}, Ints: map[int]int{0: 3}},
		},
	})

	opWhere = Register(Def[NoAttrs]{
		Name: "where", Kind: "elementwise", Doc: "x where condition is non-zero, y elsewhere. x and y share a shape; condition has it too, or is 1-D and chooses whole rows of x and y.",
		Inputs: []string{"condition", "x", "y"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			xy, err := sameShape(in[1], in[2])
			if err != nil {
				return nil, Errorf("x %v and y %v must have the same shape", in[1], in[2])
			}
			c := in[0]
			switch {
			case len(c) == len(xy):
				if _, err := sameShape(c, xy); err != nil {
					return nil, Errorf("condition %v must have the shape of x %v, or be 1-D with x's first dim", c, xy)
				}
				copy(in[1], xy)
				copy(in[2], xy)
			case len(c) == 1 && len(xy) > 1:
				d, ok := mergeDim(c[0], xy[0])
				if !ok {
					return nil, Errorf("condition %v has %d entries but x %v has %d rows", c, c[0], xy, xy[0])
				}
				c[0], in[1][0], in[2][0] = d, d, d
				xy = in[1].Clone()
			default:
				return nil, Errorf("condition %v must have the shape of x %v, or be 1-D with x's first dim", c, xy)
			}
			return []Shape{xy.Clone()}, nil
		},
		DType: func(_ *NoAttrs, in []DType) ([]DType, error) {
			if in[1] != in[2] && in[1] != Unknown && in[2] != Unknown {
				return nil, Errorf("x is %v but y is %v; use Cast to convert one of them", in[1], in[2])
			}
			if in[1] == Unknown {
				return []DType{in[2]}, nil
			}
			return []DType{in[1]}, nil
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			return whereKernel(in[0], in[1], in[2], out[0])
		},
		Grad: func(f F, _ *NoAttrs, in, _, g []Tensor) []Tensor {
			mask := in[0]
			if mask.DType() != g[0].DType() {
				mask = f.Cast(mask, g[0].DType())
			}
			mask = f.NotEqualScalar(mask, 0)
			gs := g[0].Shape()
			if ms := mask.Shape(); len(ms) != len(gs) {
				shape := make([]int, len(gs))
				for i := range shape {
					shape[i] = 1
				}
				shape[0] = ms[0]
				mask = f.Reshape(mask, shape...)
			}
			gx := f.Mul(g[0], mask)
			return []Tensor{nil, gx, f.Sub(g[0], gx)}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}, {2, 3}, {2, 3}}, Ints: map[int]int{0: 2}},
			{Inputs: []Shape{{3}, {3, 2}, {3, 2}}, Ints: map[int]int{0: 2}},
			{Inputs: []Shape{{4}, {4}, {4}}, DTypes: []DType{Int32, Float32, Float32}, Ints: map[int]int{0: 2}},
		},
	})
}

// checkPickIndex checks that pick's index has the result's number of dims.
func checkPickIndex(index, out, data Shape, ax int) error {
	if len(index) != len(out) {
		return Errorf("index %v must have shape %v: data %v without axis %d", index, out, data, ax)
	}
	for i := range out {
		if _, ok := mergeDim(out[i], index[i]); !ok {
			return Errorf("index %v must have shape %v: data %v without axis %d", index, out, data, ax)
		}
	}
	return nil
}

// Take returns the slices of a at indices along axis 0, or along the axis of
// an ops.Axis(...) Attr; Attr{"mode", "wrap"} or "raise" change how indices
// out of range are treated (the default clips them).
func (f F) Take(a, indices Tensor, attrs ...Attr) Tensor { return f.call1(opTake, attrs, a, indices) }

// Pick returns, for each position of index, the element of data it selects
// along the last axis (or the axis of an ops.Axis(...) Attr).
func (f F) Pick(data, index Tensor, attrs ...Attr) Tensor {
	return f.call1(opPick, attrs, data, index)
}

// OneHot returns arrays of length depth along a new last axis, 1 at each
// index and 0 elsewhere (float32 unless ops.WithDType is given; on_value and
// off_value change the values).
func (f F) OneHot(indices Tensor, depth int, attrs ...Attr) Tensor {
	return f.call1(opOneHot, append([]Attr{{"depth", depth}}, attrs...), indices)
}

// Where returns x where cond is non-zero and y elsewhere.
func (f F) Where(cond, x, y Tensor) Tensor { return f.callA(opWhere, &NoAttrs{}, cond, x, y) }

// BatchTake returns a[i, indices[i]] for each row i of a (its dims but
// the last, flattened), indices clipped to the last axis.
func (f F) BatchTake(a, indices Tensor) Tensor { return f.callA(opBatchTake, &NoAttrs{}, a, indices) }
