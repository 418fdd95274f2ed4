package eager

import (
	"fmt"

	"github.com/hybridgo/hybridgo/ops"
)

// Context names the device an array lives on. Only cpu(0) exists today.
type Context struct {
	DeviceType string
	DeviceID   int
}

// CPU returns the CPU context; MXNet's mx.cpu(0).
func CPU(id int) Context { return Context{"cpu", id} }

// String prints the context as MXNet does: "cpu(0)".
func (c Context) String() string { return fmt.Sprintf("%s(%d)", c.DeviceType, c.DeviceID) }

// NDArray is an n-dimensional array of one dtype on one device, computed at
// once. It implements ops.Tensor. NDArrays are made by the creation
// functions (Array, Zeros, RandomNormal, …) and by ops through F.
type NDArray struct {
	shape ops.Shape
	dtype ops.DType
	data  any // []float32, []float64, … (ops.MakeData), len == shape.Size()

	// autograd state
	gradReq GradReq        // set by AttachGrad; "" for arrays that are not variables
	grad    *NDArray       // the gradient buffer of a variable
	entry   *tapeEntry     // the recorded op that produced this array, if any
	index   int            // which output of entry this array is
	hook    func(*NDArray) // called by Backward once the gradient is final (SetGradHook)
}

var _ ops.Tensor = (*NDArray)(nil)

// FromValue wraps a kernel value as an NDArray without copying.
func FromValue(v ops.Value) *NDArray {
	return &NDArray{shape: v.Shape, dtype: v.DType, data: v.Data}
}

// newArray allocates a zeroed array.
func newArray(shape ops.Shape, dtype ops.DType) *NDArray {
	return &NDArray{shape: shape, dtype: dtype, data: ops.MakeData(dtype, shape.Size())}
}

// Shape returns the array's shape (a copy).
func (a *NDArray) Shape() ops.Shape { return a.shape.Clone() }

// DType returns the element type.
func (a *NDArray) DType() ops.DType { return a.dtype }

// Context returns the device the array lives on.
func (a *NDArray) Context() Context { return CPU(0) }

// Size is the number of elements.
func (a *NDArray) Size() int { return a.shape.Size() }

// NDim is the number of dimensions.
func (a *NDArray) NDim() int { return len(a.shape) }

// Value returns the array as kernels see it; it shares the array's memory.
func (a *NDArray) Value() ops.Value { return ops.Value{Shape: a.shape, DType: a.dtype, Data: a.data} }

// Data returns the element slice itself ([]float32 for float32 arrays, and
// so on), shared with the array: writes change the array.
func (a *NDArray) Data() any { return a.data }

// Float32s returns a copy of the values as float32.
func (a *NDArray) Float32s() []float32 {
	if d, ok := a.data.([]float32); ok {
		return append([]float32(nil), d...)
	}
	xs := ops.ToFloat64s(a.data)
	out := make([]float32, len(xs))
	for i, x := range xs {
		out[i] = float32(x)
	}
	return out
}

// Float64s returns a copy of the values as float64.
func (a *NDArray) Float64s() []float64 { return ops.ToFloat64s(a.data) }

// Scalar returns the value of a one-element array; MXNet's asscalar().
func (a *NDArray) Scalar() float64 {
	if a.Size() != 1 {
		panic(&ops.Error{Op: "Scalar", Msg: fmt.Sprintf("the array has shape %v (%d elements); Scalar needs exactly one", a.shape, a.Size())})
	}
	return a.at(0)
}

// At returns the element at a full index: x.At(1, 2) on a 2-D array.
func (a *NDArray) At(index ...int) float64 {
	if len(index) != len(a.shape) {
		panic(&ops.Error{Op: "At", Msg: fmt.Sprintf("index %v has %d dims, the array %v has %d", index, len(index), a.shape, len(a.shape))})
	}
	off := 0
	for i, ix := range index {
		if ix < 0 {
			ix += a.shape[i]
		}
		if ix < 0 || ix >= a.shape[i] {
			panic(&ops.Error{Op: "At", Msg: fmt.Sprintf("index %v is out of range for shape %v (dim %d)", index, a.shape, i)})
		}
		off = off*a.shape[i] + ix
	}
	return a.at(off)
}

func (a *NDArray) at(i int) float64 { return at(a.data, i) }

// AsType returns a copy converted to dtype (MXNet's astype); it is recorded
// by autograd like any op.
func (a *NDArray) AsType(dtype ops.DType) *NDArray {
	return F.Cast(a, dtype).(*NDArray)
}

// Copy returns a copy that shares no memory with a (MXNet's copy()).
// The copy is recorded by autograd, so gradients flow through it.
func (a *NDArray) Copy() *NDArray {
	return F.Identity(a).(*NDArray)
}

// Detach returns an array that shares a's values but is cut from the
// autograd tape (MXNet's detach()).
func (a *NDArray) Detach() *NDArray {
	return &NDArray{shape: a.shape, dtype: a.dtype, data: a.data}
}

// Reshape returns the array with a new shape; the codes of the Reshape op
// apply (0 copies a dim, -1 infers one).
func (a *NDArray) Reshape(shape ...int) *NDArray {
	return F.Reshape(a, shape...).(*NDArray)
}

// CopyFrom overwrites dst's values with src's, in place (MXNet's
// src.copyto(dst)); the shapes and dtypes must match. It is how an
// optimizer updates a parameter without replacing the array.
func CopyFrom(dst, src *NDArray) {
	if !dst.shape.Equal(src.shape) || dst.dtype != src.dtype {
		panic(&ops.Error{Op: "CopyFrom", Msg: fmt.Sprintf("cannot copy %v %v into %v %v", src.shape, src.dtype, dst.shape, dst.dtype)})
	}
	ops.CopyData(dst.data, src.data)
}
