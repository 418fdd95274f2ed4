package bench

import (
	"testing"

	"github.com/hybridgo/hybridgo/nn/vision"
)

// benchResNetTrain times the ResNet-18 v1 training step of the
// resnet18-train-b16 case at a size that profiles quickly: batch 4,
// 64×64. Run it with GOMAXPROCS=1 for the one-thread numbers.
func benchResNetTrain(b *testing.B, impl string) {
	net, err := vision.GetModel("resnet18_v1", vision.Options{Classes: 10})
	if err != nil {
		b.Fatal(err)
	}
	step, err := trainStep(net, impl, 4, 3, 64, 64)
	if err != nil {
		b.Fatal(err)
	}
	if err := step(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := step(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResNetTrainHybrid(b *testing.B) { benchResNetTrain(b, ImplOursHybrid) }
func BenchmarkResNetTrainEager(b *testing.B)  { benchResNetTrain(b, ImplOursEager) }
