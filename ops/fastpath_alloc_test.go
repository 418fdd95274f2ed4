//go:build !race

// The race detector drops pooled values at random, so allocation is
// measured without it.

package ops

import "testing"

// The element-wise fast paths hand their loops to the worker pool by
// value: a call allocates nothing, small or large.
func TestFastPathsAllocateNothing(t *testing.T) {
	for _, n := range []int{64, 1 << 18} {
		a := Value{Data: make([]float32, n), Shape: Shape{n / 16, 16}, DType: Float32}
		row := Value{Data: make([]float32, 16), Shape: Shape{16}, DType: Float32}
		one := Value{Data: make([]float32, 1), Shape: Shape{1}, DType: Float32}
		out := Value{Data: make([]float32, n), Shape: a.Shape, DType: Float32}
		nchw := Value{Data: a.Data, Shape: Shape{n / 64, 4, 4, 4}, DType: Float32}
		channel := Value{Data: make([]float32, 4), Shape: Shape{1, 4, 1, 1}, DType: Float32}
		nchwOut := Value{Data: out.Data, Shape: nchw.Shape, DType: Float32}
		if !fastBinary(arithSub, nchw, channel, nchwOut) {
			t.Fatalf("%d elements: a per-channel broadcast missed the fast path", n)
		}
		for name, fn := range map[string]func(){
			"same shape": func() { fastBinary(arithAdd, a, a, out) },
			"scalar":     func() { fastBinary(arithMul, a, one, out) },
			"swapped":    func() { fastBinary(arithSub, one, a, out) },
			"row":        func() { fastBinary(arithAdd, a, row, out) },
			"channel":    func() { fastBinary(arithSub, nchw, channel, nchwOut) },
			"unary":      func() { fastUnary(unaryAbs, a, out) },
			"relu":       func() { fastUnary(unaryRelu, a, out) },
		} {
			fn()
			if allocs := testing.AllocsPerRun(20, fn); allocs != 0 {
				t.Errorf("%s, %d elements: %v allocations per call", name, n, allocs)
			}
		}
	}
}
