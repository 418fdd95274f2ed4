package ops

// Repeating and reversing: tile repeats the whole array along each axis,
// repeat each element along one axis, reverse (flip) reverses axes.

// TileAttrs are the attributes of tile.
type TileAttrs struct {
	Reps Tuple `attr:"reps" doc:"how many times to repeat the array along each axis"`
}

// layout pads the data shape and reps to one length and returns them.
func (a *TileAttrs) layout(data Shape) (Shape, Tuple, error) {
	for _, r := range a.Reps {
		if r <= 0 {
			return nil, nil, Errorf("reps %v must be positive (empty arrays are not supported)", a.Reps)
		}
	}
	n := max(len(data), len(a.Reps))
	d := make(Shape, n)
	r := make(Tuple, n)
	for i := range n {
		d[i], r[i] = 1, 1
	}
	copy(d[n-len(data):], data)
	copy(r[n-len(a.Reps):], a.Reps)
	return d, r, nil
}

// RepeatAttrs are the attributes of repeat.
type RepeatAttrs struct {
	Repeats int    `attr:"repeats" doc:"how many times each element repeats"`
	Axis    OptInt `attr:"axis" default:"None" doc:"the axis to repeat along; None flattens the input first"`
}

// layout describes repeat as a broadcast: the input viewed with shape src
// becomes the result viewed with shape view (a repeats-long dim after the
// repeated one) by reading with strides.
func (a *RepeatAttrs) layout(data Shape) (view Shape, strides []int, out Shape, err error) {
	if a.Repeats <= 0 {
		return nil, nil, nil, Errorf("repeats=%d must be positive (empty arrays are not supported)", a.Repeats)
	}
	if !a.Axis.Valid {
		n := data.Size()
		if !data.Known() {
			n = 0
		}
		return Shape{n, a.Repeats}, []int{1, 0}, Shape{n * a.Repeats}, nil
	}
	ax, e := NormAxis(a.Axis.Value, len(data))
	if e != nil {
		return nil, nil, nil, Errorf("axis=%v is out of range for data %v", a.Axis, data)
	}
	st := data.Strides()
	view = append(append(data[:ax+1].Clone(), a.Repeats), data[ax+1:]...)
	strides = append(append(append([]int{}, st[:ax+1]...), 0), st[ax+1:]...)
	out = data.Clone()
	out[ax] *= a.Repeats
	return view, strides, out, nil
}

// ReverseAttrs are the attributes of reverse (flip).
type ReverseAttrs struct {
	Axis Tuple `attr:"axis" doc:"the axes to reverse"`
}

func (a *ReverseAttrs) axes(data Shape) ([]bool, error) {
	flip := make([]bool, len(data))
	for _, ax := range a.Axis {
		n, err := NormAxis(ax, len(data))
		if err != nil {
			return nil, Errorf("axis %v: %v (data %v)", a.Axis, err, data)
		}
		flip[n] = true
	}
	return flip, nil
}

var opTile, opRepeat, opReverse *Op

func init() {
	opTile = Register(Def[TileAttrs]{
		Name: "tile", Kind: "shape", Doc: "Repeats the whole array reps[i] times along axis i; the shorter of the shape and reps is padded with leading 1s.",
		Inputs: []string{"data"},
		Shape: func(a *TileAttrs, in []Shape) ([]Shape, error) {
			d, r, err := a.layout(in[0])
			if err != nil {
				return nil, err
			}
			out := make(Shape, len(d))
			for i := range d {
				out[i] = d[i] * r[i]
			}
			return []Shape{out}, nil
		},
		Kernel: func(_ *Env, a *TileAttrs, in, out []Value) error {
			d, r, err := a.layout(in[0].Shape)
			if err != nil {
				return err
			}
			st := d.Strides()
			view := make(Shape, 0, 2*len(d))
			strides := make([]int, 0, 2*len(d))
			for i := range d {
				view = append(view, r[i], d[i])
				strides = append(strides, 0, st[i])
			}
			return gatherStrided(in[0], out[0], view, 0, strides)
		},
		Grad: func(f F, a *TileAttrs, in, _, g []Tensor) []Tensor {
			d, r, err := a.layout(in[0].Shape())
			if err != nil {
				panic(err)
			}
			view := make([]int, 0, 2*len(d))
			var axes Tuple
			for i := range d {
				axes = append(axes, len(view))
				view = append(view, r[i], d[i])
			}
			s := f.Sum(f.Reshape(g[0], view...), Attr{"axis", axes})
			return []Tensor{f.Reshape(s, in[0].Shape()...)}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"reps": "(2, 3)"}, Inputs: []Shape{{2, 2}}},
			{Attrs: map[string]string{"reps": "(2,)"}, Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"reps": "(2, 1, 2)"}, Inputs: []Shape{{3, 2}}},
		},
	})
	opRepeat = Register(Def[RepeatAttrs]{
		Name: "repeat", Kind: "shape", Doc: "Repeats each element repeats times along axis; with no axis the input is flattened first.",
		Inputs: []string{"data"},
		Shape: func(a *RepeatAttrs, in []Shape) ([]Shape, error) {
			_, _, out, err := a.layout(in[0])
			return []Shape{out}, err
		},
		Kernel: func(_ *Env, a *RepeatAttrs, in, out []Value) error {
			view, strides, _, err := a.layout(in[0].Shape)
			if err != nil {
				return err
			}
			return gatherStrided(in[0], out[0], view, 0, strides)
		},
		Grad: func(f F, a *RepeatAttrs, in, _, g []Tensor) []Tensor {
			view, _, _, err := a.layout(in[0].Shape())
			if err != nil {
				panic(err)
			}
			ax := 1
			if a.Axis.Valid {
				ax, _ = NormAxis(a.Axis.Value, len(in[0].Shape()))
				ax++
			}
			s := f.Sum(f.Reshape(g[0], view...), Axis(ax))
			return []Tensor{f.Reshape(s, in[0].Shape()...)}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"repeats": "2"}, Inputs: []Shape{{2, 2}}},
			{Attrs: map[string]string{"repeats": "3", "axis": "1"}, Inputs: []Shape{{2, 2}}},
			{Attrs: map[string]string{"repeats": "2", "axis": "0"}, Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"repeats": "2", "axis": "-1"}, Inputs: []Shape{{2, 1, 3}}},
		},
	})
	opReverse = Register(Def[ReverseAttrs]{
		Name: "reverse", Kind: "shape", Aliases: []string{"flip"}, Doc: "Reverses the order of the elements along the given axes.",
		Inputs: []string{"data"},
		Shape: func(a *ReverseAttrs, in []Shape) ([]Shape, error) {
			if _, err := a.axes(in[0]); err != nil {
				return nil, err
			}
			return []Shape{in[0].Clone()}, nil
		},
		Kernel: func(_ *Env, a *ReverseAttrs, in, out []Value) error {
			flip, err := a.axes(in[0].Shape)
			if err != nil {
				return err
			}
			st := in[0].Shape.Strides()
			strides := make([]int, len(st))
			base := 0
			for i, s := range st {
				strides[i] = s
				if flip[i] {
					strides[i] = -s
					base += (in[0].Shape[i] - 1) * s
				}
			}
			return gatherStrided(in[0], out[0], in[0].Shape, base, strides)
		},
		Grad: func(f F, a *ReverseAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.Flip(g[0], a.Axis...)}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"axis": "0"}, Inputs: []Shape{{2, 5}}},
			{Attrs: map[string]string{"axis": "(0, 2)"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axis": "-1"}, Inputs: []Shape{{3, 2}}},
		},
	})
}

// Tile repeats the whole of x reps[i] times along axis i.
func (f F) Tile(x Tensor, reps ...int) Tensor {
	return f.callA(opTile, &TileAttrs{Reps: reps}, x)
}

// Repeat repeats each element of x repeats times; the input is flattened
// unless an ops.Axis(...) Attr names the axis to repeat along.
func (f F) Repeat(x Tensor, repeats int, attrs ...Attr) Tensor {
	return f.call1(opRepeat, append([]Attr{{"repeats", repeats}}, attrs...), x)
}

// Flip reverses the order of the elements of x along the given axes (reverse).
func (f F) Flip(x Tensor, axes ...int) Tensor {
	return f.callA(opReverse, &ReverseAttrs{Axis: axes}, x)
}
