package ops

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Small contrib ops: _contrib_index_copy (rows of one array replaced by
// another's), _contrib_quadratic (a·x² + b·x + c), the straight-through
// estimators _contrib_round_ste and _contrib_sign_ste (round and sign
// forward, the identity's gradient backward), and the checks that take no
// gradient: _histogram, _contrib_allclose, all_finite and multi_all_finite.

// QuadraticAttrs are the attributes of _contrib_quadratic.
type QuadraticAttrs struct {
	A float64 `attr:"a" default:"0" doc:"the coefficient of x²"`
	B float64 `attr:"b" default:"0" doc:"the coefficient of x"`
	C float64 `attr:"c" default:"0" doc:"the constant term"`
}

// HistogramAttrs are the attributes of _histogram.
type HistogramAttrs struct {
	BinCnt OptInt `attr:"bin_cnt" default:"None" doc:"the number of equal bins over range; None: the input bins gives the bin edges"`
	Range  string `attr:"range" default:"None" doc:"(min, max), the interval the bin_cnt bins divide; required with bin_cnt"`
}

// AllCloseAttrs are the attributes of _contrib_allclose.
type AllCloseAttrs struct {
	RTol     float64 `attr:"rtol" default:"1e-05" doc:"relative tolerance"`
	ATol     float64 `attr:"atol" default:"1e-08" doc:"absolute tolerance"`
	EqualNaN bool    `attr:"equal_nan" default:"True" doc:"NaNs in a equal NaNs in b"`
}

// AllFiniteAttrs are the attributes of all_finite.
type AllFiniteAttrs struct {
	InitOutput bool `attr:"init_output" default:"True" doc:"start the output at 1; False (and-ing into an existing output) is not supported"`
}

// MultiAllFiniteAttrs are the attributes of multi_all_finite.
type MultiAllFiniteAttrs struct {
	NumArrays  int  `attr:"num_arrays" default:"1" doc:"the number of inputs"`
	InitOutput bool `attr:"init_output" default:"True" doc:"start the output at 1; False (and-ing into an existing output) is not supported"`
}

// MultiSumSqAttrs are the attributes of multi_sum_sq.
type MultiSumSqAttrs struct {
	NumArrays int `attr:"num_arrays" doc:"the number of inputs"`
}

// IndexArrayAttrs are the attributes of _contrib_index_array.
type IndexArrayAttrs struct {
	Axes Tuple `attr:"axes" default:"None" doc:"the axes whose indices are listed, negative ones from the end; None: all"`
}

var opMultiSumSq, opIndexArray *Op

var opGradientMultiplier, opIndexCopy, opQuadratic, opRoundSTE, opSignSTE, opHistogram, opAllClose, opAllFinite, opMultiAllFinite *Op

func init() {
	opIndexCopy = Register(Def[NoAttrs]{
		Name: "_contrib_index_copy", Aliases: []string{"_npx_index_copy"}, Kind: "other",
		Doc: "Copies old_tensor, with its rows (along axis 0) index_vector[i] replaced by row i of new_tensor. " +
			"new_tensor's other dims equal old_tensor's; old_tensor gets the gradient of the rows kept, new_tensor " +
			"that of the rows it wrote, and index_vector none.",
		Inputs: []string{"old_tensor", "index_vector", "new_tensor"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			old, idx, nw := in[0], in[1], in[2]
			if len(idx) != 1 {
				return nil, Errorf("index_vector %v must be 1-D", idx)
			}
			if len(old) == 0 || len(old) != len(nw) {
				return nil, Errorf("new_tensor %v must have the dims of old_tensor %v", nw, old)
			}
			if idx[0] != 0 && nw[0] != 0 && idx[0] != nw[0] {
				return nil, Errorf("index_vector %v must have one index per row of new_tensor %v", idx, nw)
			}
			for i := 1; i < len(old); i++ {
				if old[i] != 0 && nw[i] != 0 && old[i] != nw[i] {
					return nil, Errorf("new_tensor %v must have the dims of old_tensor %v after the first", nw, old)
				}
			}
			return []Shape{old.Clone()}, nil
		},
		DType: func(_ *NoAttrs, in []DType) ([]DType, error) {
			if in[0] != Unknown && in[2] != Unknown && in[0] != in[2] {
				return nil, Errorf("new_tensor is %v but old_tensor is %v; use Cast to convert one of them", in[2], in[0])
			}
			return []DType{in[0]}, nil
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			CopyData(out[0].Data, in[0].Data)
			rows := in[0].Shape[0]
			row := in[0].Shape.Size() / max(rows, 1)
			idx := make([]int, 0, in[2].Shape.Size())
			for i, v := range in[1].Float64s() {
				r := int(v)
				if r < 0 || r >= rows || float64(r) != v {
					return Errorf("index_vector[%d]=%v is not a row of old_tensor %v", i, v, in[0].Shape)
				}
				for j := range row {
					idx = append(idx, r*row+j)
				}
			}
			return moveElems(out[0].Data, in[2].Data, idx, true)
		},
		Grad: func(f F, _ *NoAttrs, in, _, g []Tensor) []Tensor {
			kept := f.callA(opIndexCopy, &NoAttrs{}, f.OnesLike(in[0]), in[1], f.ZerosLike(in[2]))
			return []Tensor{f.Mul(g[0], kept), nil, f.Take(g[0], in[1])}
		},
		Samples: []Sample{
			{Inputs: []Shape{{5, 3}, {1}, {1, 3}}, Ints: map[int]int{1: 5}},
			{Inputs: []Shape{{4}, {3}, {3}}, Ints: map[int]int{1: 4}, NoGradCheck: true}, // repeated indices: the last copy wins
		},
	})

	opMultiSumSq = Register(Def[MultiSumSqAttrs]{
		Name: "multi_sum_sq", Kind: "reduce",
		Doc: "The sum of the squares of each of the num_arrays inputs (arrays of one dtype, any shapes), as float32 " +
			"(num_arrays): the squared norms a LARS or LAMB step reads. Input i's gradient is 2·x_i times element i " +
			"of the incoming one.",
		InputNames: func(a *MultiSumSqAttrs) []string {
			names := make([]string, max(a.NumArrays, 0))
			for i := range names {
				names[i] = fmt.Sprintf("array_%d", i)
			}
			return names
		},
		Check: func(a *MultiSumSqAttrs) error {
			if a.NumArrays < 1 {
				return Errorf("num_arrays=%d: at least one input is needed", a.NumArrays)
			}
			return nil
		},
		Shape: func(a *MultiSumSqAttrs, _ []Shape) ([]Shape, error) { return []Shape{{a.NumArrays}}, nil },
		DType: func(_ *MultiSumSqAttrs, in []DType) ([]DType, error) {
			d := Unknown
			for i, t := range in {
				if t == Unknown {
					continue
				}
				if t != Float32 && t != Float64 {
					return nil, Errorf("array_%d is %v; float32 or float64 is needed", i, t)
				}
				if d != Unknown && t != d {
					return nil, Errorf("array_%d is %v but array_0 is %v; use Cast to convert one of them", i, t, d)
				}
				d = t
			}
			return []DType{Float32}, nil
		},
		Kernel: func(_ *Env, _ *MultiSumSqAttrs, in, out []Value) error {
			sums := make([]float64, len(in))
			for i, v := range in {
				for _, x := range v.Float64s() {
					sums[i] += x * x
				}
			}
			CopyData(out[0].Data, FromFloat64s(Float32, sums))
			return nil
		},
		Grad: func(f F, _ *MultiSumSqAttrs, in, _, g []Tensor) []Tensor {
			gs := make([]Tensor, len(in))
			for i, x := range in {
				gi := f.Cast(f.SliceAxis(g[0], 0, i, i+1), x.DType())
				gs[i] = f.Mul(f.MulScalar(x, 2), gi)
			}
			return gs
		},
		Samples: []Sample{
			// The float32 result cannot resolve a float64 central
			// difference: the gradient is checked in the package's tests.
			{Attrs: map[string]string{"num_arrays": "3"}, Inputs: []Shape{{2, 3}, {4}, {1, 2, 2}}, NoGradCheck: true},
			{Attrs: map[string]string{"num_arrays": "1"}, Inputs: []Shape{{5}}, NoGradCheck: true},
		},
	})

	opIndexArray = Register(Def[IndexArrayAttrs]{
		Name: "_contrib_index_array", Aliases: []string{"_npx_index_array"}, Kind: "other",
		Doc: "The index of each element of data: the result (data's dims..., k), int64, holds at [i0, i1, ...] the " +
			"coordinates i along the axes listed (all of them, in order, when axes is None).",
		Inputs: []string{"data"},
		Shape: func(a *IndexArrayAttrs, in []Shape) ([]Shape, error) {
			axes, err := a.axes(len(in[0]))
			if err != nil {
				return nil, err
			}
			return []Shape{append(in[0].Clone(), len(axes))}, nil
		},
		DType: func(_ *IndexArrayAttrs, _ []DType) ([]DType, error) { return []DType{Int64}, nil },
		Kernel: func(_ *Env, a *IndexArrayAttrs, in, out []Value) error {
			s := in[0].Shape
			axes, err := a.axes(len(s))
			if err != nil {
				return err
			}
			strides := make([]int, len(s))
			st := 1
			for i := len(s) - 1; i >= 0; i-- {
				strides[i] = st
				st *= s[i]
			}
			y := make([]float64, 0, out[0].Shape.Size())
			for i := range s.Size() {
				for _, ax := range axes {
					y = append(y, float64(i/strides[ax]%s[ax]))
				}
			}
			CopyData(out[0].Data, FromFloat64s(Int64, y))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"axes": "(-1, 0)"}, Inputs: []Shape{{2, 3, 2}}},
		},
	})

	opGradientMultiplier = Register(Def[ScalarAttrs]{
		Name: "_contrib_gradientmultiplier", Kind: "elementwise",
		Doc: "The identity forward; the gradient is multiplied by scalar on its way back (a negative scalar reverses " +
			"it, as in domain-adversarial training).",
		Inputs: []string{"data"},
		Shape:  func(_ *ScalarAttrs, in []Shape) ([]Shape, error) { return []Shape{in[0].Clone()}, nil },
		DType:  func(_ *ScalarAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, _ *ScalarAttrs, in, out []Value) error {
			CopyData(out[0].Data, in[0].Data)
			return nil
		},
		Elementwise: func(*ScalarAttrs) func([]float64) float64 { return func(x []float64) float64 { return x[0] } },
		InPlace:     true,
		Grad: func(f F, a *ScalarAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.MulScalar(g[0], a.Scalar)}
		},
		Samples: []Sample{
			// The gradient is not the forward's derivative.
			{Attrs: map[string]string{"scalar": "-0.5"}, Inputs: []Shape{{2, 3}}, NoGradCheck: true},
		},
	})

	opQuadratic = Register(Def[QuadraticAttrs]{
		Name: "_contrib_quadratic", Kind: "elementwise",
		Doc:    "a·x² + b·x + c, element by element.",
		Inputs: []string{"data"},
		Shape:  func(_ *QuadraticAttrs, in []Shape) ([]Shape, error) { return []Shape{in[0].Clone()}, nil },
		DType:  func(_ *QuadraticAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *QuadraticAttrs, in, out []Value) error {
			return mapUnary(in[0], out[0], func(x float64) float64 { return (a.A*x+a.B)*x + a.C })
		},
		Elementwise: func(a *QuadraticAttrs) func([]float64) float64 {
			q := *a
			return func(x []float64) float64 { return (q.A*x[0]+q.B)*x[0] + q.C }
		},
		InPlace: true,
		Grad: func(f F, a *QuadraticAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.Mul(g[0], f.PlusScalar(f.MulScalar(in[0], 2*a.A), a.B))}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"a": "2", "b": "-1", "c": "0.5"}, Inputs: []Shape{{2, 3}}},
			{Inputs: []Shape{{4}}},
		},
	})

	opRoundSTE = registerSTE("_contrib_round_ste", "round", math.Round)
	opSignSTE = registerSTE("_contrib_sign_ste", "sign", func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return x // 0 and NaN
	})

	opHistogram = Register(Def[HistogramAttrs]{
		Name: "_histogram", Aliases: []string{"_npi_histogram"}, Kind: "reduce",
		Doc: "Counts the elements of data in each bin: bin_cnt equal bins over range (min, max), or the bins whose " +
			"edges the increasing input bins gives. A bin holds the values from its left edge up to its right one, " +
			"the last bin its right edge too; values outside the edges are not counted. The outputs are the counts " +
			"(int64) and the bin edges.",
		InputNames: func(a *HistogramAttrs) []string {
			if a.BinCnt.Valid {
				return []string{"data"}
			}
			return []string{"data", "bins"}
		},
		Outputs: 2,
		Check: func(a *HistogramAttrs) error {
			lo, hi, ok, err := a.rangeValues()
			switch {
			case err != nil:
				return err
			case a.BinCnt.Valid != ok:
				return Errorf("bin_cnt and range go together: give both, or neither and the input bins")
			case a.BinCnt.Valid && a.BinCnt.Value < 1:
				return Errorf("bin_cnt=%d must be positive", a.BinCnt.Value)
			case ok && !(lo <= hi):
				return Errorf("range (%v, %v): min must not exceed max", lo, hi)
			}
			return nil
		},
		Shape: func(a *HistogramAttrs, in []Shape) ([]Shape, error) {
			if a.BinCnt.Valid {
				return []Shape{{a.BinCnt.Value}, {a.BinCnt.Value + 1}}, nil
			}
			b := in[1]
			if len(b) != 1 || (b[0] != 0 && b[0] < 2) {
				return nil, Errorf("bins %v must be a vector of at least 2 edges", b)
			}
			return []Shape{{max(b[0]-1, 0)}, b.Clone()}, nil
		},
		DType: func(_ *HistogramAttrs, in []DType) ([]DType, error) {
			if in[0] == Bool {
				return nil, Errorf("data is bool; Cast it first")
			}
			return []DType{Int64, in[0]}, nil
		},
		Kernel: func(_ *Env, a *HistogramAttrs, in, out []Value) error {
			var edges []float64
			if a.BinCnt.Valid {
				lo, hi, _, _ := a.rangeValues()
				n := a.BinCnt.Value
				edges = make([]float64, n+1)
				for i := range edges {
					edges[i] = lo + (hi-lo)*float64(i)/float64(n)
				}
			} else {
				edges = in[1].Float64s()
				if !sort.Float64sAreSorted(edges) {
					return Errorf("bins %v must increase", edges)
				}
			}
			n := len(edges) - 1
			counts := make([]float64, n)
			for _, x := range in[0].Float64s() {
				if !(x >= edges[0] && x <= edges[n]) {
					continue
				}
				// The last edge not above x, within the bins.
				i := sort.Search(n+1, func(i int) bool { return edges[i] > x }) - 1
				counts[min(i, n-1)]++
			}
			CopyData(out[0].Data, FromFloat64s(Int64, counts))
			CopyData(out[1].Data, FromFloat64s(out[1].DType, edges))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Attrs: map[string]string{"bin_cnt": "5", "range": "(-1, 1)"}, Inputs: []Shape{{4, 5}}},
			{Attrs: map[string]string{"bin_cnt": "3", "range": "(-0.5, 0.5)"}, Inputs: []Shape{{10}}},
		},
	})

	opAllClose = Register(Def[AllCloseAttrs]{
		Name: "_contrib_allclose", Kind: "reduce",
		Doc: "1 (uint8, a scalar) when every |a - b| <= atol + rtol·|b|, 0 otherwise; NaNs are equal to NaNs with " +
			"equal_nan and to nothing without. a and b have one shape.",
		Inputs: []string{"a", "b"},
		Shape: func(_ *AllCloseAttrs, in []Shape) ([]Shape, error) {
			m, ok := mergeShapes(in[0], in[1])
			if !ok {
				return nil, Errorf("a %v and b %v must have one shape", in[0], in[1])
			}
			copy(in[0], m)
			copy(in[1], m)
			return []Shape{{}}, nil
		},
		DType: func(_ *AllCloseAttrs, in []DType) ([]DType, error) { return []DType{Uint8}, nil },
		Kernel: func(_ *Env, a *AllCloseAttrs, in, out []Value) error {
			xs, ys := in[0].Float64s(), in[1].Float64s()
			all := 1.0
			for i, x := range xs {
				y := ys[i]
				var ok bool
				if math.IsNaN(x) || math.IsNaN(y) {
					ok = a.EqualNaN && math.IsNaN(x) && math.IsNaN(y)
				} else {
					ok = x == y || math.Abs(x-y) <= a.ATol+a.RTol*math.Abs(y)
				}
				if !ok {
					all = 0
					break
				}
			}
			fillData(out[0].Data, all)
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}, {2, 3}}},
			{Attrs: map[string]string{"rtol": "1", "atol": "2"}, Inputs: []Shape{{4}, {4}}},
		},
	})

	opAllFinite = Register(Def[AllFiniteAttrs]{
		Name: "all_finite", Kind: "reduce",
		Doc:    "1 (float32, shape (1,)) when no element of data is infinite or NaN, 0 otherwise.",
		Inputs: []string{"data"},
		Check:  func(a *AllFiniteAttrs) error { return checkInitOutput(a.InitOutput) },
		Shape:  func(_ *AllFiniteAttrs, _ []Shape) ([]Shape, error) { return []Shape{{1}}, nil },
		DType:  func(_ *AllFiniteAttrs, _ []DType) ([]DType, error) { return []DType{Float32}, nil },
		Kernel: func(_ *Env, _ *AllFiniteAttrs, in, out []Value) error {
			fillData(out[0].Data, allFinite(in))
			return nil
		},
		NoGrad:  true,
		Samples: []Sample{{Inputs: []Shape{{2, 3}}}, {Inputs: []Shape{{5}}, DTypes: []DType{Float64}}},
	})

	opMultiAllFinite = Register(Def[MultiAllFiniteAttrs]{
		Name: "multi_all_finite", Kind: "reduce",
		Doc: "1 (float32, shape (1,)) when no element of any of the num_arrays inputs is infinite or NaN, 0 otherwise: " +
			"the check of a mixed-precision step's gradients.",
		InputNames: func(a *MultiAllFiniteAttrs) []string {
			names := make([]string, max(a.NumArrays, 0))
			for i := range names {
				names[i] = fmt.Sprintf("array_%d", i)
			}
			return names
		},
		Check: func(a *MultiAllFiniteAttrs) error {
			if a.NumArrays < 1 {
				return Errorf("num_arrays=%d: at least one input is needed", a.NumArrays)
			}
			return checkInitOutput(a.InitOutput)
		},
		Shape: func(_ *MultiAllFiniteAttrs, _ []Shape) ([]Shape, error) { return []Shape{{1}}, nil },
		DType: func(_ *MultiAllFiniteAttrs, _ []DType) ([]DType, error) { return []DType{Float32}, nil },
		Kernel: func(_ *Env, _ *MultiAllFiniteAttrs, in, out []Value) error {
			fillData(out[0].Data, allFinite(in))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Attrs: map[string]string{"num_arrays": "3"}, Inputs: []Shape{{2, 3}, {4}, {1, 2}}},
			{Inputs: []Shape{{3}}},
		},
	})
}

// registerSTE registers a straight-through estimator: fn forward, the
// gradient passed through unchanged.
func registerSTE(name, of string, fn func(float64) float64) *Op {
	return Register(Def[NoAttrs]{
		Name: name, Kind: "elementwise",
		Doc: "The straight-through estimator of " + of + ": " + of + "(x) forward, while the gradient passes through " +
			"unchanged (1 everywhere, where " + of + "'s own is 0), so that a quantising step can be trained through.",
		Inputs:      []string{"data"},
		Shape:       func(_ *NoAttrs, in []Shape) ([]Shape, error) { return []Shape{in[0].Clone()}, nil },
		DType:       func(_ *NoAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel:      func(_ *Env, _ *NoAttrs, in, out []Value) error { return mapUnary(in[0], out[0], fn) },
		Elementwise: func(*NoAttrs) func([]float64) float64 { return func(x []float64) float64 { return fn(x[0]) } },
		InPlace:     true,
		Grad:        func(_ F, _ *NoAttrs, _, _, g []Tensor) []Tensor { return []Tensor{g[0]} },
		Samples: []Sample{
			// The gradient is not the forward's derivative (0 almost
			// everywhere), so the numeric check does not apply.
			{Inputs: []Shape{{2, 3}}, Low: -3, High: 3, NoGradCheck: true},
			{Inputs: []Shape{{5}}, NoGradCheck: true},
		},
	})
}

// axes resolves index_array's axes for data of ndim dims.
func (a *IndexArrayAttrs) axes(ndim int) ([]int, error) {
	if len(a.Axes) == 0 {
		all := make([]int, ndim)
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	out := make([]int, len(a.Axes))
	for i, ax := range a.Axes {
		n, err := NormAxis(ax, ndim)
		if err != nil {
			return nil, Errorf("axes %v: data has %d dims", a.Axes, ndim)
		}
		out[i] = n
	}
	return out, nil
}

// checkInitOutput refuses init_output=False.
func checkInitOutput(init bool) error {
	if !init {
		return Errorf("init_output=False (and-ing into the output of an earlier call) is not supported; combine the results with a product")
	}
	return nil
}

// allFinite is 1 when every element of every input is finite, 0 otherwise.
func allFinite(in []Value) float64 {
	for _, v := range in {
		for _, x := range v.Float64s() {
			if math.IsInf(x, 0) || math.IsNaN(x) {
				return 0
			}
		}
	}
	return 1
}

// rangeValues parses range: (min, max), or ok false for None.
func (a *HistogramAttrs) rangeValues() (lo, hi float64, ok bool, err error) {
	s := strings.TrimSpace(a.Range)
	if s == "None" || s == "" {
		return 0, 0, false, nil
	}
	parts := strings.Split(strings.Trim(s, "()[] "), ",")
	if len(parts) != 2 {
		return 0, 0, false, Errorf("range=%q must be (min, max)", a.Range)
	}
	v := [2]float64{}
	for i, p := range parts {
		if v[i], err = strconv.ParseFloat(strings.TrimSpace(p), 64); err != nil {
			return 0, 0, false, Errorf("range=%q must be (min, max) of numbers", a.Range)
		}
	}
	return v[0], v[1], true, nil
}

// MultiSumSq returns the sum of the squares of each of xs, as float32
// (len(xs)) (multi_sum_sq).
func (f F) MultiSumSq(xs ...Tensor) Tensor {
	return f.callA(opMultiSumSq, &MultiSumSqAttrs{NumArrays: len(xs)}, xs...)
}

// IndexArray returns the coordinates of each element of x along axes (all
// axes when none are given), int64 (data's dims..., len(axes))
// (_contrib_index_array).
func (f F) IndexArray(x Tensor, axes ...int) Tensor {
	return f.callA(opIndexArray, &IndexArrayAttrs{Axes: axes}, x)
}

// IndexCopy returns old with its rows idx[i] replaced by the rows i of
// newRows (_contrib_index_copy).
func (f F) IndexCopy(old, idx, newRows Tensor) Tensor {
	return f.callA(opIndexCopy, &NoAttrs{}, old, idx, newRows)
}

// GradientMultiplier returns x, its gradient multiplied by lambda on the
// way back (_contrib_gradientmultiplier).
func (f F) GradientMultiplier(x Tensor, lambda float64) Tensor {
	return f.callA(opGradientMultiplier, &ScalarAttrs{Scalar: lambda}, x)
}

// Quadratic returns a·x² + b·x + c element by element.
func (f F) Quadratic(x Tensor, a, b, c float64) Tensor {
	return f.callA(opQuadratic, &QuadraticAttrs{A: a, B: b, C: c}, x)
}

// RoundSTE rounds x, passing the gradient through unchanged.
func (f F) RoundSTE(x Tensor) Tensor { return f.callA(opRoundSTE, &NoAttrs{}, x) }

// SignSTE returns the sign of x, passing the gradient through unchanged.
func (f F) SignSTE(x Tensor) Tensor { return f.callA(opSignSTE, &NoAttrs{}, x) }

// Histogram counts the elements of x in binCnt equal bins over [lo, hi];
// it returns the counts (int64) and the bin edges.
func (f F) Histogram(x Tensor, binCnt int, lo, hi float64) (counts, edges Tensor) {
	a := &HistogramAttrs{BinCnt: OptInt{Value: binCnt, Valid: true}, Range: fmt.Sprintf("(%v, %v)", lo, hi)}
	if err := opHistogram.Validate(a); err != nil {
		panic(err)
	}
	out := f.Invoke(opHistogram, a, x)
	return out[0], out[1]
}

// AllClose returns 1 (uint8, a scalar) when a and b agree within the
// tolerances (rtol, atol, equal_nan in attrs), 0 otherwise.
func (f F) AllClose(a, b Tensor, attrs ...Attr) Tensor { return f.call1(opAllClose, attrs, a, b) }

// AllFinite returns 1 (float32, shape (1,)) when no element of any of xs is
// infinite or NaN, 0 otherwise (all_finite, or multi_all_finite for
// several arrays).
func (f F) AllFinite(xs ...Tensor) Tensor {
	if len(xs) == 1 {
		return f.callA(opAllFinite, &AllFiniteAttrs{InitOutput: true}, xs[0])
	}
	return f.callA(opMultiAllFinite, &MultiAllFiniteAttrs{NumArrays: len(xs), InitOutput: true}, xs...)
}
