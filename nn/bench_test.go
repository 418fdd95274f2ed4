package nn_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
)

// BenchmarkSmallMLPForward is the per-call cost of a small block, where
// overhead rather than arithmetic dominates: eager op by op, and hybridized
// (one cached graph call).
func BenchmarkSmallMLPForward(b *testing.B) {
	for _, hybrid := range []bool{false, true} {
		name := "eager"
		if hybrid {
			name = "hybridized"
		}
		b.Run(name, func(b *testing.B) {
			net := nn.NewHybridSequential(nn.NewDense(32, nn.DenseOptions{Act: "relu"}), nn.NewDense(32, nn.DenseOptions{Act: "relu"}), nn.NewDense(10))
			net.Initialize()
			x := eager.RandomNormal(1, 16)
			net.Forward(x)
			if hybrid {
				net.Hybridize(nn.HybridizeOptions{StaticAlloc: true})
				net.Forward(x)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				net.Forward(x)
			}
		})
	}
}
