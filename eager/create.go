package eager

import (
	"fmt"

	"github.com/hybridgo/hybridgo/ops"
)

// Array makes an NDArray from a Go slice and a shape; with no shape the
// array is 1-D. The dtype follows the slice: []float32 -> float32,
// []float64 -> float64, []int -> int64, []int32, []int64, []int8, []uint8,
// []bool. The values are copied. A length that does not match the shape
// panics with an *ops.Error.
//
//	x := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
func Array(values any, shape ...int) *NDArray {
	a, err := NewArray(values, shape...)
	if err != nil {
		panic(err)
	}
	return a
}

// NewArray is Array returning an error instead of panicking.
func NewArray(values any, shape ...int) (*NDArray, error) {
	var data any
	switch v := values.(type) {
	case []int:
		d := make([]int64, len(v))
		for i, x := range v {
			d[i] = int64(x)
		}
		data = d
	case []float32:
		data = append([]float32(nil), v...)
	case []float64:
		data = append([]float64(nil), v...)
	case []int32:
		data = append([]int32(nil), v...)
	case []int64:
		data = append([]int64(nil), v...)
	case []int8:
		data = append([]int8(nil), v...)
	case []uint8:
		data = append([]uint8(nil), v...)
	case []bool:
		data = append([]bool(nil), v...)
	default:
		return nil, &ops.Error{Op: "Array", Msg: fmt.Sprintf("cannot make an array from %T (want a slice of float32, float64, int, int32, int64, int8, uint8 or bool)", values)}
	}
	dtype, _ := ops.DTypeOfData(data)
	n := ops.DataLen(data)
	s := ops.Shape(shape)
	if len(shape) == 0 {
		s = ops.Shape{n}
	}
	for _, d := range s {
		if d <= 0 {
			return nil, &ops.Error{Op: "Array", Msg: fmt.Sprintf("shape %v has a dim that is not positive", s)}
		}
	}
	if s.Size() != n {
		return nil, &ops.Error{Op: "Array", Msg: fmt.Sprintf("%d values do not fill shape %v (%d elements)", n, s, s.Size())}
	}
	return &NDArray{shape: s.Clone(), dtype: dtype, data: data}, nil
}

// ScalarArray makes a float32 array of shape (1,) holding v, as MXNet's mx.nd.array([v]).
func ScalarArray(v float64) *NDArray { return Array([]float32{float32(v)}) }

func nd(t ops.Tensor) *NDArray { return t.(*NDArray) }

// Zeros returns a float32 array of zeros.
func Zeros(shape ...int) *NDArray { return nd(F.Zeros(shape)) }

// Ones returns a float32 array of ones.
func Ones(shape ...int) *NDArray { return nd(F.Ones(shape)) }

// Full returns a float32 array whose every element is value.
func Full(value float64, shape ...int) *NDArray { return nd(F.Full(shape, value)) }

// Arange returns the float32 values start, start+step, … below stop.
func Arange(start, stop, step float64) *NDArray { return nd(F.Arange(start, stop, step)) }

// Eye returns the n x n float32 identity matrix.
func Eye(n int) *NDArray { return nd(F.Eye(n)) }

// RandomUniform returns float32 samples from the uniform distribution on
// [0, 1); F.RandomUniform takes other bounds.
func RandomUniform(shape ...int) *NDArray { return nd(F.RandomUniform(0, 1, shape)) }

// RandomNormal returns float32 samples from the standard normal
// distribution; F.RandomNormal takes another mean and scale.
func RandomNormal(shape ...int) *NDArray { return nd(F.RandomNormal(0, 1, shape)) }

// ZerosOf returns zeros of any dtype.
func ZerosOf(dtype ops.DType, shape ...int) *NDArray {
	return nd(F.Zeros(shape, ops.WithDType(dtype)))
}
