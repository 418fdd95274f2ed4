package ops

import (
	"fmt"

	"github.com/hybridgo/hybridgo/accel"
)

// Reductions over axes: sum and mean here; the other reductions share
// ReduceAttrs and reduceShape.

// ReduceAttrs are the attributes of the reductions (sum, mean, max, …).
type ReduceAttrs struct {
	Axis     Tuple `attr:"axis" default:"None" doc:"the axes to reduce; None or () reduces all"`
	Keepdims bool  `attr:"keepdims" default:"False" doc:"keep reduced axes as dims of size 1"`
	Exclude  bool  `attr:"exclude" default:"False" doc:"reduce every axis except those given"`
}

// reduceAxes returns, for each dim of in, whether it is reduced.
func (a *ReduceAttrs) reduceAxes(ndim int) ([]bool, error) {
	return a.reduceAxesTo(make([]bool, ndim), ndim)
}

// reduceAxesTo is reduceAxes writing into red (ndim long).
func (a *ReduceAttrs) reduceAxesTo(red []bool, ndim int) ([]bool, error) {
	clear(red)
	if len(a.Axis) == 0 {
		for i := range red {
			red[i] = !a.Exclude
		}
		return red, nil
	}
	for _, ax := range a.Axis {
		n, err := NormAxis(ax, ndim)
		if err != nil {
			return nil, err
		}
		if red[n] {
			return nil, Errorf("axis %d is given twice", ax)
		}
		red[n] = true
	}
	if a.Exclude {
		for i := range red {
			red[i] = !red[i]
		}
	}
	return red, nil
}

// reduceShape is the shape rule of every reduction.
func (a *ReduceAttrs) reduceShape(in Shape) (Shape, error) {
	red, err := a.reduceAxes(len(in))
	if err != nil {
		return nil, err
	}
	out := Shape{}
	for i, d := range in {
		switch {
		case !red[i]:
			out = append(out, d)
		case a.Keepdims:
			out = append(out, 1)
		}
	}
	if len(out) == 0 && len(in) > 0 {
		out = Shape{1} // MXNet's legacy reductions return shape (1,), not a scalar
	}
	return out, nil
}

// keptShape is the output shape with reduced dims kept as 1.
func (a *ReduceAttrs) keptShape(in Shape) Shape {
	return a.keptShapeTo(make(Shape, 0, len(in)), in)
}

// keptShapeTo is keptShape appending to dst[:0], so that a kernel can keep
// the shape on the stack.
func (a *ReduceAttrs) keptShapeTo(dst, in Shape) Shape {
	var buf [maxIterDims]bool
	var red []bool
	if len(in) <= len(buf) {
		red = buf[:len(in)]
	} else {
		red = make([]bool, len(in))
	}
	red, _ = a.reduceAxesTo(red, len(in))
	out := append(dst[:0], in...)
	for i := range out {
		if red != nil && red[i] {
			out[i] = 1
		}
	}
	return out
}

// reduceCount is how many input elements fall into each output element.
func (a *ReduceAttrs) reduceCount(in Shape) int {
	return in.Size() / a.keptShape(in).Size()
}

// Reduce folds the elements of in along reduced axes into out (whose
// shape, with reduced dims kept as 1, is kept): out = fold(fold(init, x1), x2)…
// in float64. finish, when not nil, maps each folded value and its count.
// The input is read in its own dtype; the float64 accumulator is pooled.
func Reduce(in Value, kept Shape, out Value, init float64, fold func(acc, x float64) float64, finish func(acc float64, n int) float64) error {
	return reduce(in, kept, out, init, fold, finish, false)
}

// reduce is Reduce; sum says that fold is acc + x, which then runs as an
// inline loop: in the same order of additions, so with the same result,
// except for float32 runs along reduced inner axes, which are summed in
// float32 vector lanes before their sums join the float64 accumulator
// (see sumOuterInner32).
func reduce(in Value, kept Shape, out Value, init float64, fold func(acc, x float64) float64, finish func(acc float64, n int) float64, sum bool) error {
	accp := getFloat64s(kept.Size())
	defer putFloat64s(accp)
	acc := *accp
	for i := range acc {
		acc[i] = init
	}
	switch x := in.Data.(type) {
	case []float32:
		reduceAny(x, in.Shape, kept, acc, fold, sum)
	case []float64:
		reduceAny(x, in.Shape, kept, acc, fold, sum)
	case []uint8:
		reduceAny(x, in.Shape, kept, acc, fold, sum)
	case []int8:
		reduceAny(x, in.Shape, kept, acc, fold, sum)
	case []int32:
		reduceAny(x, in.Shape, kept, acc, fold, sum)
	case []int64:
		reduceAny(x, in.Shape, kept, acc, fold, sum)
	default:
		return fmt.Errorf("dtype %v is not supported", in.DType)
	}
	if finish != nil {
		count := in.Shape.Size() / max(kept.Size(), 1)
		for i := range acc {
			acc[i] = finish(acc[i], count)
		}
	}
	switch o := out.Data.(type) {
	case []float32:
		storeFloat64s(o, acc)
	case []float64:
		copy(o, acc)
	case []uint8:
		storeFloat64s(o, acc)
	case []int8:
		storeFloat64s(o, acc)
	case []int32:
		storeFloat64s(o, acc)
	case []int64:
		storeFloat64s(o, acc)
	default:
		return fmt.Errorf("output dtype %v is not supported", out.DType)
	}
	return nil
}

func reduceAny[T Number](x []T, shape, kept Shape, acc []float64, fold func(acc, x float64) float64, sum bool) {
	if x32, ok := any(x).([]float32); ok && sum {
		if outer, mid, inner, ok := outerKeptInner(shape, kept); ok {
			sumOuterInner32(x32, outer, mid, inner, acc)
			return
		}
	}
	if sum {
		reduceSumLoop(x, shape, kept, acc)
		return
	}
	reduceLoop(x, shape, kept, acc, fold)
}

// sumLeaf is the longest run of float32 that sumOuterInner32 sums in
// float32 before adding to its float64 accumulator (accel.Sum adds one
// such run without allocating).
const sumLeaf = 1024

// outerKeptInner splits shape, reduced to kept, into (outer, mid, inner):
// reduced axes, then kept ones, then reduced ones, as in the sums that
// make bias gradients (axes 0, 2, 3 of NCHW; axis 0 of a matrix). ok is
// false when the axes are not laid out so.
func outerKeptInner(shape, kept Shape) (outer, mid, inner int, ok bool) {
	outer, mid, inner = 1, 1, 1
	stage := 0 // 0: leading reduced axes, 1: kept axes, 2: trailing reduced axes
	for d, n := range shape {
		if n == 1 {
			continue
		}
		switch reduced := kept[d] == 1; {
		case reduced && stage == 0:
			outer *= n
		case !reduced && stage <= 1:
			stage = 1
			mid *= n
		case reduced:
			stage = 2
			inner *= n
		default:
			return 0, 0, 0, false
		}
	}
	return outer, mid, inner, true
}

// sumOuterInner32 is reduceSumLoop for float32 laid out as outerKeptInner
// says: acc[j] gets the sum of x[i, j, :] over i. Runs along the inner axes
// are summed in float32 vector lanes, leaf by leaf, and the leaves' sums
// in float64.
func sumOuterInner32(x []float32, outer, mid, inner int, acc []float64) {
	for i := range outer {
		block := x[i*mid*inner:][:mid*inner]
		if inner == 1 {
			for j, v := range block {
				acc[j] += float64(v)
			}
			continue
		}
		for j := range mid {
			row := block[j*inner:][:inner]
			s := acc[j]
			for len(row) > 0 {
				k := min(len(row), sumLeaf)
				s += float64(accel.Sum(row[:k]))
				row = row[k:]
			}
			acc[j] = s
		}
	}
}

// reduceSumLoop is reduceLoop for fold = acc + x: a run that folds into
// one element (a reduced last axis) is summed in a local variable.
func reduceSumLoop[T Number](x []T, shape, kept Shape, acc []float64) {
	it := newBroadcastIter(shape, shape, kept)
	it.run(func(o, _, io, n, _, so int) {
		xs := x[o : o+n]
		if so == 0 {
			s := acc[io]
			for _, v := range xs {
				s += float64(v)
			}
			acc[io] = s
			return
		}
		for j, v := range xs {
			acc[io+j*so] += float64(v)
		}
	})
}

func reduceLoop[T Number](x []T, shape, kept Shape, acc []float64, fold func(acc, x float64) float64) {
	it := newBroadcastIter(shape, shape, kept)
	it.run(func(o, _, io, n, _, so int) {
		for j := 0; j < n; j++ {
			acc[io+j*so] = fold(acc[io+j*so], float64(x[o+j]))
		}
	})
}

func storeFloat64s[T Number](dst []T, src []float64) {
	for i, v := range src {
		dst[i] = T(v)
	}
}

// getFloat64s returns a pooled scratch slice of n float64s (contents undefined).
func getFloat64s(n int) *[]float64 { return accel.GetScratch[float64](n) }

func putFloat64s(p *[]float64) { accel.PutScratch(p) }

func reduceSamples() []Sample {
	return []Sample{
		{Inputs: []Shape{{2, 3, 4}}},
		{Attrs: map[string]string{"axis": "1"}, Inputs: []Shape{{2, 3, 4}}},
		{Attrs: map[string]string{"axis": "(0, 2)", "keepdims": "True"}, Inputs: []Shape{{2, 3, 4}}},
		{Attrs: map[string]string{"axis": "-1", "exclude": "True"}, Inputs: []Shape{{2, 3, 4}}},
		{Attrs: map[string]string{"axis": "0"}, Inputs: []Shape{{5}}},
	}
}

// reduceGradBroadcast spreads an output gradient back over the reduced axes.
func reduceGradBroadcast(f F, a *ReduceAttrs, x, g Tensor) Tensor {
	return f.BroadcastLike(f.Reshape(g, a.keptShape(x.Shape())...), x)
}

// reduceDef defines a reduction that folds from init with fold, then maps
// each result with finish (when not nil).
func reduceDef(name string, aliases []string, doc string, init float64, fold func(acc, x float64) float64, finish func(float64, int) float64,
	grad func(f F, a *ReduceAttrs, x, y, g Tensor) Tensor) Def[ReduceAttrs] {
	sums := name == "sum" || name == "mean" // fold is acc + x
	return Def[ReduceAttrs]{
		Name: name, Kind: "reduce", Aliases: aliases, Doc: doc, Inputs: []string{"data"},
		Shape: func(a *ReduceAttrs, in []Shape) ([]Shape, error) {
			s, err := a.reduceShape(in[0])
			return []Shape{s}, err
		},
		DType: func(_ *ReduceAttrs, in []DType) ([]DType, error) {
			if in[0] == Bool {
				return nil, Errorf("dtype bool is not supported; Cast the input first")
			}
			return []DType{in[0]}, nil
		},
		Kernel: func(_ *Env, a *ReduceAttrs, in, out []Value) error {
			var buf [maxIterDims]int
			return reduce(in[0], a.keptShapeTo(buf[:0], in[0].Shape), out[0], init, fold, finish, sums)
		},
		Grad: func(f F, a *ReduceAttrs, in, out, g []Tensor) []Tensor {
			return []Tensor{grad(f, a, in[0], out[0], g[0])}
		},
		Samples: reduceSamples(),
	}
}

var opSum, opMean *Op

func init() {
	opSum = Register(reduceDef("sum", []string{"sum_axis"}, "Sum over the given axes (all by default).", 0,
		func(acc, x float64) float64 { return acc + x }, nil,
		func(f F, a *ReduceAttrs, x, y, g Tensor) Tensor { return reduceGradBroadcast(f, a, x, g) }))
	opMean = Register(reduceDef("mean", nil, "Mean over the given axes (all by default).", 0,
		func(acc, x float64) float64 { return acc + x },
		func(acc float64, n int) float64 { return acc / float64(n) },
		func(f F, a *ReduceAttrs, x, y, g Tensor) Tensor {
			return f.DivScalar(reduceGradBroadcast(f, a, x, g), float64(a.reduceCount(x.Shape())))
		}))
}

// Sum adds up x over all axes, or over those given: F.Sum(x, ops.Axis(1),
// ops.Keepdims()).
func (f F) Sum(x Tensor, attrs ...Attr) Tensor { return f.call1(opSum, attrs, x) }

// Mean averages x over all axes, or over those given.
func (f F) Mean(x Tensor, attrs ...Attr) Tensor { return f.call1(opMean, attrs, x) }
