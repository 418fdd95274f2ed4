package ops

// Padded sequences: SequenceMask, SequenceLast and SequenceReverse, on
// data whose time axis is axis (0: (T, N, …); 1: (N, T, …)) with
// optional per-sequence lengths, index-map ops (gather_map.go).

// SequenceAttrs are the attributes of SequenceMask, SequenceLast and
// SequenceReverse (SequenceMask alone reads value).
type SequenceAttrs struct {
	UseSequenceLength bool    `attr:"use_sequence_length" default:"False" doc:"read each sequence's length from the input sequence_length (N,); otherwise every sequence has the full length"`
	Value             float64 `attr:"value" default:"0.0" doc:"SequenceMask: the value of the masked elements"`
	Axis              int     `attr:"axis" default:"0" doc:"the time axis: 0 for (T, N, …) data, 1 for (N, T, …)"`
}

// SequenceLastAttrs are the attributes of SequenceLast and SequenceReverse.
type SequenceLastAttrs struct {
	UseSequenceLength bool `attr:"use_sequence_length" default:"False" doc:"read each sequence's length from the input sequence_length (N,); otherwise every sequence has the full length"`
	Axis              int  `attr:"axis" default:"0" doc:"the time axis: 0 for (T, N, …) data, 1 for (N, T, …)"`
}

var opSequenceMask, opSequenceLast, opSequenceReverse *Op

func sequenceInputs(use bool) []string {
	if use {
		return []string{"data", "sequence_length"}
	}
	return []string{"data"}
}

func init() {
	opSequenceMask = registerGather(gatherDef[SequenceAttrs]{
		Name: "SequenceMask", Kind: "shape",
		Doc: "Sets the elements of each sequence past its length (sequence_length, with use_sequence_length) to value; " +
			"the time axis is axis (0 or 1), the batch axis the other of the two.",
		InputNames: func(a *SequenceAttrs) []string { return sequenceInputs(a.UseSequenceLength) },
		Shape: func(a *SequenceAttrs, in []Shape) (Shape, error) {
			if _, _, err := sequenceAxes(a.Axis, a.UseSequenceLength, in); err != nil {
				return nil, err
			}
			return in[0].Clone(), nil
		},
		Index: func(a *SequenceAttrs, in []Value) ([]int, error) {
			data := in[0].Shape
			t, b, err := sequenceAxes(a.Axis, a.UseSequenceLength, shapesOf(in))
			if err != nil {
				return nil, err
			}
			lens := sequenceLengths(in, data[t], data[b], a.UseSequenceLength)
			return coordMap(data, data, func(oc, ic []int) bool {
				copy(ic, oc)
				return oc[t] < lens[oc[b]]
			}), nil
		},
		Fill: func(a *SequenceAttrs) float64 { return a.Value },
		Samples: []Sample{
			{Inputs: []Shape{{3, 2, 2}}},
			{Attrs: map[string]string{"use_sequence_length": "True", "value": "-1"}, Inputs: []Shape{{4, 3, 2}, {3}}, Ints: map[int]int{1: 5}},
			{Attrs: map[string]string{"use_sequence_length": "True", "axis": "1"}, Inputs: []Shape{{2, 4, 3}, {2}}, Ints: map[int]int{1: 5}},
		},
		BackSamples: []Sample{
			{Attrs: map[string]string{"use_sequence_length": "True"}, Inputs: []Shape{{4, 3, 2}, {4, 3, 2}, {3}}, Ints: map[int]int{2: 5}},
		},
	})

	opSequenceLast = registerGather(gatherDef[SequenceLastAttrs]{
		Name: "SequenceLast", Kind: "shape",
		Doc: "The last element of each sequence (at its length - 1 with use_sequence_length, else at the end of the time axis): " +
			"data's shape without the time axis axis.",
		InputNames: func(a *SequenceLastAttrs) []string { return sequenceInputs(a.UseSequenceLength) },
		Shape: func(a *SequenceLastAttrs, in []Shape) (Shape, error) {
			t, _, err := sequenceAxes(a.Axis, a.UseSequenceLength, in)
			if err != nil {
				return nil, err
			}
			return append(in[0][:t].Clone(), in[0][t+1:]...), nil
		},
		Index: func(a *SequenceLastAttrs, in []Value) ([]int, error) {
			data := in[0].Shape
			t, b, err := sequenceAxes(a.Axis, a.UseSequenceLength, shapesOf(in))
			if err != nil {
				return nil, err
			}
			lens := sequenceLengths(in, data[t], data[b], a.UseSequenceLength)
			out := append(data[:t].Clone(), data[t+1:]...)
			ob := b // the batch axis in the output
			if b > t {
				ob--
			}
			return coordMap(out, data, func(oc, ic []int) bool {
				copy(ic[:t], oc[:t])
				copy(ic[t+1:], oc[t:])
				ic[t] = max(lens[oc[ob]]-1, 0)
				return true
			}), nil
		},
		Samples: []Sample{
			{Inputs: []Shape{{3, 2, 2}}},
			{Attrs: map[string]string{"use_sequence_length": "True"}, Inputs: []Shape{{4, 3, 2}, {3}}, Ints: map[int]int{1: 5}},
			{Attrs: map[string]string{"use_sequence_length": "True", "axis": "1"}, Inputs: []Shape{{2, 4}, {2}}, Ints: map[int]int{1: 5}},
		},
		BackSamples: []Sample{
			{Attrs: map[string]string{"use_sequence_length": "True"}, Inputs: []Shape{{3, 2}, {4, 3, 2}, {3}}, Ints: map[int]int{2: 5}},
		},
	})

	opSequenceReverse = registerGather(gatherDef[SequenceLastAttrs]{
		Name: "SequenceReverse", Kind: "shape",
		Doc: "Reverses the first length elements of each sequence along the time axis (axis 0: data (T, N, …)); " +
			"the elements past a sequence's length stay where they are.",
		InputNames: func(a *SequenceLastAttrs) []string { return sequenceInputs(a.UseSequenceLength) },
		Check: func(a *SequenceLastAttrs) error {
			if a.Axis != 0 {
				return Errorf("axis=%d: SequenceReverse supports only axis 0, as MXNet does", a.Axis)
			}
			return nil
		},
		Shape: func(a *SequenceLastAttrs, in []Shape) (Shape, error) {
			if _, _, err := sequenceAxes(a.Axis, a.UseSequenceLength, in); err != nil {
				return nil, err
			}
			return in[0].Clone(), nil
		},
		Index: func(a *SequenceLastAttrs, in []Value) ([]int, error) {
			data := in[0].Shape
			t, b, err := sequenceAxes(a.Axis, a.UseSequenceLength, shapesOf(in))
			if err != nil {
				return nil, err
			}
			lens := sequenceLengths(in, data[t], data[b], a.UseSequenceLength)
			return coordMap(data, data, func(oc, ic []int) bool {
				copy(ic, oc)
				if n := lens[oc[b]]; oc[t] < n {
					ic[t] = n - 1 - oc[t]
				}
				return true
			}), nil
		},
		Samples: []Sample{
			{Inputs: []Shape{{3, 2, 2}}},
			{Attrs: map[string]string{"use_sequence_length": "True"}, Inputs: []Shape{{4, 3, 2}, {3}}, Ints: map[int]int{1: 5}},
		},
		BackSamples: []Sample{
			{Attrs: map[string]string{"use_sequence_length": "True"}, Inputs: []Shape{{4, 3}, {4, 3}, {3}}, Ints: map[int]int{2: 5}},
		},
	})
}

// sequenceAxes returns the time and batch axes of the data, checking the
// lengths' shape.
func sequenceAxes(axis int, useLength bool, in []Shape) (int, int, error) {
	data := in[0]
	if axis != 0 && axis != 1 {
		return 0, 0, Errorf("axis=%d: the time axis must be 0 or 1", axis)
	}
	if len(data) < 2 {
		return 0, 0, Errorf("data %v must have at least 2 dims (time and batch)", data)
	}
	t, b := axis, 1-axis
	if useLength {
		l := in[1]
		if len(l) != 1 || (l[0] != 0 && data[b] != 0 && l[0] != data[b]) {
			return 0, 0, Errorf("sequence_length %v must be (%d,): one length per sequence of data %v", l, data[b], data)
		}
	}
	return t, b, nil
}

// sequenceLengths returns each sequence's length, clipped to [0, steps].
func sequenceLengths(in []Value, steps, batch int, useLength bool) []int {
	lens := make([]int, batch)
	for i := range lens {
		lens[i] = steps
	}
	if useLength {
		for i, n := range indexValues(in[1]) {
			lens[i] = min(max(n, 0), steps)
		}
	}
	return lens
}

func shapesOf(vs []Value) []Shape {
	s := make([]Shape, len(vs))
	for i, v := range vs {
		s[i] = v.Shape
	}
	return s
}

// SequenceMask sets the elements of each sequence of x past its length to
// value; lengths nil means every sequence is whole. The time axis is axis
// (0 or 1).
func (f F) SequenceMask(x, lengths Tensor, value float64, axis int) Tensor {
	a := &SequenceAttrs{UseSequenceLength: lengths != nil, Value: value, Axis: axis}
	if lengths == nil {
		return f.callA(opSequenceMask, a, x)
	}
	return f.callA(opSequenceMask, a, x, lengths)
}

// SequenceLast returns the last element of each sequence of x (lengths
// nil: the last time step). The time axis is axis (0 or 1).
func (f F) SequenceLast(x, lengths Tensor, axis int) Tensor {
	a := &SequenceLastAttrs{UseSequenceLength: lengths != nil, Axis: axis}
	if lengths == nil {
		return f.callA(opSequenceLast, a, x)
	}
	return f.callA(opSequenceLast, a, x, lengths)
}

// SequenceReverse reverses the first length elements of each sequence of
// x, (T, N, …) (lengths nil: the whole sequences).
func (f F) SequenceReverse(x, lengths Tensor) Tensor {
	a := &SequenceLastAttrs{UseSequenceLength: lengths != nil}
	if lengths == nil {
		return f.callA(opSequenceReverse, a, x)
	}
	return f.callA(opSequenceReverse, a, x, lengths)
}
