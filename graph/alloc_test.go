package graph_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
)

// TestStaticAllocStepNoAllocs: once planned, the forward and the backward
// of a StaticAlloc program allocate nothing, and give the same results as
// a program without StaticAlloc.
func TestStaticAllocStepNoAllocs(t *testing.T) {
	const batch = 16
	x := eager.RandomNormal(batch, 1, 28, 28)
	params := lenetParams()
	bind := map[string]*eager.NDArray{"data": x}
	for k, v := range params {
		bind[k] = v
	}
	head := eager.Ones(batch, 10)
	step := func(cop *graph.Executable, args []*eager.NDArray) (out, grad []*eager.NDArray) {
		out, err := cop.Forward(true, args...)
		if err != nil {
			t.Fatal(err)
		}
		grad, err = cop.Backward(head)
		if err != nil {
			t.Fatal(err)
		}
		return out, grad
	}
	plain, args := compileFor(t, lenetSymbol(), bind, false, graph.CompileOptions{})
	wantOut, wantGrad := step(plain, args)

	cop, args := compileFor(t, lenetSymbol(), bind, false, graph.CompileOptions{StaticAlloc: true})
	step(cop, args)
	step(cop, args)
	if n := testing.AllocsPerRun(20, func() { step(cop, args) }); n != 0 {
		t.Errorf("a planned StaticAlloc forward and backward allocate %v objects, want 0", n)
	}
	out, grad := step(cop, args)
	if d := maxDiff(out[0], wantOut[0]); d > 1e-4 {
		t.Errorf("output differs from the plain program's by %g", d)
	}
	for i := range grad {
		if (grad[i] == nil) != (wantGrad[i] == nil) {
			t.Fatalf("gradient %d: static %v, plain %v", i, grad[i], wantGrad[i])
		}
		if grad[i] != nil {
			if d := maxDiff(grad[i], wantGrad[i]); d > 1e-3 {
				t.Errorf("gradient of %s differs from the plain program's by %g", cop.InputNames()[i], d)
			}
		}
	}
}

func maxDiff(a, b *eager.NDArray) float64 {
	x, y := a.Float64s(), b.Float64s()
	d := 0.0
	for i := range x {
		d = max(d, x[i]-y[i], y[i]-x[i])
	}
	return d
}
