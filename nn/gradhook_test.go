package nn_test

import (
	"math"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/nn"
)

// Inside a hybridized block, gradient hooks run as the compiled backward
// computes each parameter's gradient: the last layer's hook sees the
// first layer's gradient not yet written; every gradient ends as without
// hooks.
func TestGradHooksInsideHybridizedBlock(t *testing.T) {
	grads := func(hooked bool) ([][]float64, map[int]bool) {
		eager.Seed(5)
		net := nn.NewHybridSequential(nn.NewDense(4, nn.DenseOptions{Act: "relu", InUnits: 3}), nn.NewDense(2, nn.DenseOptions{InUnits: 4}))
		if err := net.Initialize(); err != nil {
			t.Fatal(err)
		}
		net.Hybridize()
		params := net.CollectParams()
		x := eager.RandomNormal(5, 3)
		step := func() {
			var l *eager.NDArray
			eager.Record(func() { l = eager.F.Sum(net.Forward(x)).(*eager.NDArray) })
			if err := l.Backward(); err != nil {
				t.Fatal(err)
			}
		}
		step()
		first := params.List()[0] // the first layer's weight
		firstUnwritten := map[int]bool{}
		if hooked {
			for i, p := range params.List() {
				p.Data().SetGradHook(func(*eager.NDArray) {
					firstUnwritten[i] = math.IsNaN(first.Grad().Float64s()[0])
				})
			}
			for _, p := range params.List() {
				g := p.Grad().Data().([]float32)
				for i := range g {
					g[i] = float32(math.NaN())
				}
			}
		}
		step()
		var out [][]float64
		for _, p := range params.List() {
			out = append(out, p.Grad().Float64s())
		}
		return out, firstUnwritten
	}
	want, _ := grads(false)
	got, seen := grads(true)
	if len(seen) != 4 {
		t.Fatalf("hooks ran for %v, want the 4 parameters", seen)
	}
	unwritten := 0
	for _, u := range seen {
		if u {
			unwritten++
		}
	}
	// The second layer's weight and bias come before the first layer's
	// weight.
	if unwritten < 2 || !seen[2] || !seen[3] {
		t.Errorf("hooks that ran before the first layer's gradient was written: %v; want the second layer's", seen)
	}
	for i, w := range want {
		if d := optest.FirstDiff(got[i], w, 1e-6, 1e-7); d >= 0 {
			t.Errorf("parameter %d: gradient %v with hooks, %v without", i, got[i], w)
		}
	}
}
