package nn_test

import (
	"runtime"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
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

// TestStaticAllocRecordTwice: inside Record, two calls of one StaticAlloc
// block keep their own inputs and outputs, so the gradients match those
// of a block without StaticAlloc.
func TestStaticAllocRecordTwice(t *testing.T) {
	grads := func(static bool) []float64 {
		eager.Seed(9)
		net := nn.NewHybridSequential(nn.NewDense(8, nn.DenseOptions{Act: "relu"}), nn.NewDense(3))
		if err := net.Initialize(); err != nil {
			t.Fatal(err)
		}
		a, b := eager.RandomNormal(4, 5), eager.RandomNormal(4, 5)
		net.Forward(a)
		net.Hybridize(nn.HybridizeOptions{StaticAlloc: static})
		var loss ops.Tensor
		eager.Record(func() {
			outA := net.ForwardN(a)
			outB := net.ForwardN(b)
			loss = eager.F.Add(outA[0], eager.F.MulScalar(outB[0], 2))
		})
		if err := loss.(*eager.NDArray).Backward(); err != nil {
			t.Fatal(err)
		}
		var g []float64
		for _, p := range net.CollectParams().List() {
			g = append(g, p.Grad().Float64s()...)
		}
		return g
	}
	want, got := grads(false), grads(true)
	if i := optest.FirstDiff(got, want, 1e-5, 1e-6); i >= 0 {
		t.Fatalf("StaticAlloc gradients differ from the plain ones at %d: %v, want %v", i, got[i], want[i])
	}
}

// TestRecordedStepAllocatesLittle: a recorded call of a hybridized block
// and its Backward allocate less than a quarter of the parameters' size:
// the gradients go from the graph's frame straight into the Grad
// buffers, and the frame serves the next step.
func TestRecordedStepAllocatesLittle(t *testing.T) {
	x := eager.RandomNormal(16, 256)
	net := nn.NewHybridSequential(nn.NewDense(512, nn.DenseOptions{Act: "relu"}), nn.NewDense(512, nn.DenseOptions{Act: "relu"}), nn.NewDense(10))
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	net.Hybridize()
	step := func() {
		var loss ops.Tensor
		eager.Record(func() { loss = eager.F.Sum(net.Forward(x)) })
		if err := loss.(*eager.NDArray).Backward(); err != nil {
			t.Fatal(err)
		}
	}
	step()
	var paramBytes uint64
	for _, p := range net.CollectParams().List() {
		paramBytes += uint64(p.Data().Size()) * 4
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const steps = 10
	for range steps {
		step()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / steps; per >= paramBytes/4 {
		t.Errorf("a recorded step allocates %d bytes, want less than %d (a quarter of the parameters' %d)", per, paramBytes/4, paramBytes)
	}
}
