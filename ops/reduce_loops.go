package ops

import (
	"fmt"

	"github.com/hybridgo/hybridgo/accel"
)

// The compute loops of the reductions (reduce.go, reduce_more.go): a fold
// along the reduced axes into a pooled float64 accumulator, with an inline
// loop for sums.

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
	if inner == 1 {
		for i := range outer {
			for j, v := range x[i*mid:][:mid] {
				acc[j] += float64(v)
			}
		}
		return
	}
	// Each kept index sums its own elements, in the same order whichever
	// worker takes it.
	l := sumMidLoop{x, outer, mid, inner, acc}
	grain := max(1, elemGrain/(outer*inner))
	if accel.RunsInline(mid, grain) {
		l.Range(0, mid)
		return
	}
	accel.ParallelRange(mid, grain, l)
}

// sumMidLoop is sumOuterInner32's loop over kept indices [lo, hi).
type sumMidLoop struct {
	x                 []float32
	outer, mid, inner int
	acc               []float64
}

func (l *sumMidLoop) Range(lo, hi int) {
	for i := range l.outer {
		block := l.x[i*l.mid*l.inner:][:l.mid*l.inner]
		for j := lo; j < hi; j++ {
			row := block[j*l.inner:][:l.inner]
			s := l.acc[j]
			for len(row) > 0 {
				k := min(len(row), sumLeaf)
				s += float64(accel.Sum(row[:k]))
				row = row[k:]
			}
			l.acc[j] = s
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
