// Package nd is the REPL's ready-made eager namespace, MXNet's mx.nd:
// every op of ops.F as a function that runs at once and returns an
// *eager.NDArray (nd.Relu(x), nd.Dot(a, b, ops.TransposeB())), plus the
// creation functions (nd.RandomNormal(16, 1, 28, 28), nd.Array, nd.Zeros).
//
// It is a compiled package, so interpreted code calls it at compiled speed
// and sees concrete NDArrays rather than ops.Tensor. The op wrappers are
// generated from ops.F (go generate ./repl); the creation functions below
// take their shape as trailing ints, as eager's do, and replace the ops.F
// methods of the same names.
package nd

import (
	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// NDArray is eager.NDArray, so that nd.NDArray names the type in the REPL.
type NDArray = eager.NDArray

// Array makes an NDArray from a Go slice and an optional shape.
//
//	nd.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
func Array(values any, shape ...int) *NDArray { return eager.Array(values, shape...) }

// Zeros makes a float32 array of zeros.
func Zeros(shape ...int) *NDArray { return eager.Zeros(shape...) }

// Ones makes a float32 array of ones.
func Ones(shape ...int) *NDArray { return eager.Ones(shape...) }

// Full makes a float32 array filled with value.
func Full(value float64, shape ...int) *NDArray { return eager.Full(value, shape...) }

// Arange makes the 1-D array start, start+step, ... below stop.
func Arange(start, stop, step float64) *NDArray { return eager.Arange(start, stop, step) }

// Eye makes the n by n identity matrix.
func Eye(n int) *NDArray { return eager.Eye(n) }

// RandomUniform draws float32 values uniformly from [0, 1).
func RandomUniform(shape ...int) *NDArray { return eager.RandomUniform(shape...) }

// RandomNormal draws float32 values from the standard normal distribution.
//
//	x := nd.RandomNormal(16, 1, 28, 28)
func RandomNormal(shape ...int) *NDArray { return eager.RandomNormal(shape...) }

// Seed resets the random generator (MXNet's mx.random.seed).
func Seed(seed uint64) { eager.Seed(seed) }

// F is eager.F, the namespace the generated functions run through.
var F = eager.F

// nd converts an op's result; eager ops always return NDArrays.
func nd(t ops.Tensor) *NDArray {
	if t == nil {
		return nil
	}
	return t.(*NDArray)
}

func nds(ts []ops.Tensor) []*NDArray {
	out := make([]*NDArray, len(ts))
	for i, t := range ts {
		out[i] = nd(t)
	}
	return out
}
