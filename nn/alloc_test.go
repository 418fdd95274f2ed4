package nn_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/nn"
)

// TestStaticAllocPredictNoAllocs: once planned, a LeNet hybridized with
// StaticAlloc and StaticShape runs a predict-mode forward at batch 16
// without allocating, and its output is the graph's own buffer.
func TestStaticAllocPredictNoAllocs(t *testing.T) {
	eager.Seed(5)
	x := eager.RandomNormal(16, 1, 28, 28)
	net := newBenchLeNet(x)
	want := net.Forward(x).(*eager.NDArray).Copy()
	net.Hybridize(nn.HybridizeOptions{StaticAlloc: true, StaticShape: true})
	y := net.Forward(x).(*eager.NDArray)
	if i := optest.FirstDiff(y.Float64s(), want.Float64s(), 1e-4, 1e-5); i >= 0 {
		t.Fatalf("hybridized output differs from the eager one at %d", i)
	}
	net.Forward(x)
	if n := testing.AllocsPerRun(50, func() { net.Forward(x) }); n != 0 {
		t.Errorf("a planned StaticAlloc forward allocates %v objects per call, want 0", n)
	}
	if y2 := net.Forward(x).(*eager.NDArray); y2 != y {
		t.Errorf("the output array is not reused between calls")
	}
}
