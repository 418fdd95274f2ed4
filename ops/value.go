package ops

import (
	"fmt"
	"math/rand/v2"

	"github.com/hybridgo/hybridgo/accel"
)

// Value is a dense row-major array as kernels see it: a shape, a dtype and
// the elements in a Go slice of the matching type ([]float32 for Float32,
// []float64, []uint8, []int8, []int32, []int64, or []bool).
type Value struct {
	Shape Shape
	DType DType
	Data  any
}

// NewValue allocates a zeroed Value.
func NewValue(shape Shape, dtype DType) Value {
	return Value{Shape: shape, DType: dtype, Data: MakeData(dtype, shape.Size())}
}

// MakeData allocates a zeroed slice of n elements of dtype.
func MakeData(dtype DType, n int) any {
	switch dtype {
	case Float32:
		return accel.MakeLarge[float32](n, n)
	case Float64:
		return make([]float64, n)
	case Uint8:
		return make([]uint8, n)
	case Int8:
		return make([]int8, n)
	case Int32:
		return make([]int32, n)
	case Int64:
		return make([]int64, n)
	case Bool:
		return make([]bool, n)
	}
	panic(fmt.Sprintf("ops: no storage for dtype %v", dtype))
}

// DataLen returns the number of elements in a data slice made by MakeData.
func DataLen(data any) int {
	switch d := data.(type) {
	case []float32:
		return len(d)
	case []float64:
		return len(d)
	case []uint8:
		return len(d)
	case []int8:
		return len(d)
	case []int32:
		return len(d)
	case []int64:
		return len(d)
	case []bool:
		return len(d)
	}
	return -1
}

// DTypeOfData returns the dtype of a data slice.
func DTypeOfData(data any) (DType, bool) {
	switch data.(type) {
	case []float32:
		return Float32, true
	case []float64:
		return Float64, true
	case []uint8:
		return Uint8, true
	case []int8:
		return Int8, true
	case []int32:
		return Int32, true
	case []int64:
		return Int64, true
	case []bool:
		return Bool, true
	}
	return Unknown, false
}

// Float64s returns the elements converted to float64 (a copy).
func (v Value) Float64s() []float64 { return ToFloat64s(v.Data) }

// ToFloat64s converts a data slice to float64 (booleans become 0 and 1).
func ToFloat64s(data any) []float64 {
	switch d := data.(type) {
	case []float32:
		return convert[float32, float64](d)
	case []float64:
		return append([]float64(nil), d...)
	case []uint8:
		return convert[uint8, float64](d)
	case []int8:
		return convert[int8, float64](d)
	case []int32:
		return convert[int32, float64](d)
	case []int64:
		return convert[int64, float64](d)
	case []bool:
		out := make([]float64, len(d))
		for i, b := range d {
			if b {
				out[i] = 1
			}
		}
		return out
	}
	return nil
}

// FromFloat64s converts float64 values into a new data slice of dtype
// (truncating toward zero for integer dtypes, as a C cast does).
func FromFloat64s(dtype DType, xs []float64) any {
	switch dtype {
	case Float32:
		return convert[float64, float32](xs)
	case Float64:
		return append([]float64(nil), xs...)
	case Uint8:
		return convert[float64, uint8](xs)
	case Int8:
		return convert[float64, int8](xs)
	case Int32:
		return convert[float64, int32](xs)
	case Int64:
		return convert[float64, int64](xs)
	case Bool:
		out := make([]bool, len(xs))
		for i, x := range xs {
			out[i] = x != 0
		}
		return out
	}
	panic(fmt.Sprintf("ops: no storage for dtype %v", dtype))
}

// Number is the constraint of numeric element types.
type Number interface {
	~float32 | ~float64 | ~uint8 | ~int8 | ~int32 | ~int64
}

func convert[S, D Number](src []S) []D {
	out := make([]D, len(src))
	for i, x := range src {
		out[i] = D(x)
	}
	return out
}

// Env is what a kernel may need beyond its inputs: whether the forward is
// for training (Dropout, BatchNorm) and the random source of random ops.
type Env struct {
	Training bool
	Rand     *rand.Rand
}
