package ops

// _split_v2: splitting along an axis at given indices or into equal
// sections (numpy's split; SliceChannel, in concat.go, is MXNet's older
// equal split).

// SplitV2Attrs are the attributes of _split_v2.
type SplitV2Attrs struct {
	Indices     Tuple `attr:"indices" doc:"where the parts start along axis (each part ends where the next starts, the last at the end); ignored when sections > 0"`
	Axis        int   `attr:"axis" default:"1" doc:"the axis to split along"`
	SqueezeAxis bool  `attr:"squeeze_axis" default:"False" doc:"drop the axis from the parts (each must then have size 1)"`
	Sections    int   `attr:"sections" default:"0" doc:"split into this many equal parts instead of at indices"`
}

// parts returns the normalised axis and the [start, end) of each part
// along it.
func (a *SplitV2Attrs) parts(data Shape) (int, [][2]int, error) {
	ax, err := NormAxis(a.Axis, len(data))
	if err != nil {
		return 0, nil, Errorf("axis=%d is out of range for data %v", a.Axis, data)
	}
	n := data[ax]
	var starts []int
	if a.Sections > 0 {
		if n != 0 && n%a.Sections != 0 {
			return 0, nil, Errorf("axis %d of data %v (size %d) does not split into sections=%d equal parts", ax, data, n, a.Sections)
		}
		for i := range a.Sections {
			starts = append(starts, i*n/a.Sections)
		}
	} else {
		starts = a.Indices
	}
	if len(starts) == 0 {
		return 0, nil, Errorf("give indices or sections > 0 to say where to split")
	}
	parts := make([][2]int, len(starts))
	for i, s := range starts {
		e := n
		if i+1 < len(starts) {
			e = starts[i+1]
		}
		if n != 0 && (s < 0 || s > e || e > n) {
			return 0, nil, Errorf("indices %v: part %d [%d, %d) does not fit axis %d of data %v (size %d)", a.Indices, i, s, e, ax, data, n)
		}
		if a.SqueezeAxis && n != 0 && e-s != 1 {
			return 0, nil, Errorf("squeeze_axis: part %d has size %d on axis %d; it must be 1", i, e-s, ax)
		}
		parts[i] = [2]int{s, e}
	}
	return ax, parts, nil
}

func (a *SplitV2Attrs) numParts() int {
	if a.Sections > 0 {
		return a.Sections
	}
	return max(len(a.Indices), 1)
}

var opSplitV2 *Op

func init() {
	opSplitV2 = Register(Def[SplitV2Attrs]{
		Name: "_split_v2", Kind: "shape",
		Doc: "Splits the data along axis into parts starting at indices (each ending where the next starts, the last at the end " +
			"of the axis), or into sections equal parts; with squeeze_axis the parts, of size 1, lose the axis.",
		Inputs:     []string{"data"},
		NumOutputs: func(a *SplitV2Attrs) int { return a.numParts() },
		Shape: func(a *SplitV2Attrs, in []Shape) ([]Shape, error) {
			ax, parts, err := a.parts(in[0])
			if err != nil {
				return nil, err
			}
			out := make([]Shape, len(parts))
			for i, p := range parts {
				s := in[0].Clone()
				if s[ax] != 0 {
					s[ax] = p[1] - p[0]
				}
				if a.SqueezeAxis {
					s = append(s[:ax], s[ax+1:]...)
				}
				out[i] = s
			}
			return out, nil
		},
		DType: func(a *SplitV2Attrs, in []DType) ([]DType, error) {
			out := make([]DType, a.numParts())
			for i := range out {
				out[i] = in[0]
			}
			return out, nil
		},
		Kernel: func(_ *Env, a *SplitV2Attrs, in, out []Value) error {
			data := in[0].Shape
			ax, parts, err := a.parts(data)
			if err != nil {
				return err
			}
			for i, p := range parts {
				s := data.Clone()
				s[ax] = p[1] - p[0]
				idx := coordMap(s, data, func(oc, ic []int) bool {
					copy(ic, oc)
					ic[ax] += p[0]
					return true
				})
				if err := moveElems(out[i].Data, in[0].Data, idx, false); err != nil {
					return err
				}
			}
			return nil
		},
		Grad: func(f F, a *SplitV2Attrs, in, _, g []Tensor) []Tensor {
			ax, parts, _ := a.parts(in[0].Shape())
			var pieces []Tensor
			if parts[0][0] > 0 { // the elements before the first part
				pieces = append(pieces, f.ZerosLike(f.SliceAxis(in[0], ax, 0, parts[0][0])))
			}
			for i := range parts {
				gi := g[i]
				if a.SqueezeAxis {
					gi = f.ExpandDims(gi, ax)
				}
				pieces = append(pieces, gi)
			}
			if len(pieces) == 1 {
				return pieces
			}
			return []Tensor{f.Concat(ax, pieces...)}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"indices": "(0, 1, 3)"}, Inputs: []Shape{{2, 5}}},
			{Attrs: map[string]string{"indices": "()", "axis": "0", "sections": "2"}, Inputs: []Shape{{4, 3}}},
			{Attrs: map[string]string{"indices": "(1, 3)", "axis": "-1"}, Inputs: []Shape{{2, 2, 5}}},
			{Attrs: map[string]string{"indices": "(0, 1)", "axis": "0", "squeeze_axis": "True"}, Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"indices": "(0,)"}, Inputs: []Shape{{2, 3}}},
		},
	})
}

// SplitV2 splits x along axis into parts starting at indices (numpy's
// split with a list); ops.Attr{"squeeze_axis", true} drops the axis from
// parts of size 1.
func (f F) SplitV2(x Tensor, axis int, indices []int, attrs ...Attr) []Tensor {
	all := append([]Attr{{"axis", axis}, {"indices", Tuple(indices)}}, attrs...)
	return f.Invoke(opSplitV2, mustAttrs(opSplitV2, all), x)
}
