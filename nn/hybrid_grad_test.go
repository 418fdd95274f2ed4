package nn_test

import (
	"slices"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// TestGradThroughHybridizedCallIsOwned: the gradients Grad returns
// through a hybridized block are the caller's own arrays. The block's
// gradients lie in its graph's buffers, which the next recorded call
// reuses; a later step must leave the earlier results alone.
func TestGradThroughHybridizedCallIsOwned(t *testing.T) {
	net := nn.NewHybridSequential(nn.NewDense(8, nn.DenseOptions{Act: "relu"}), nn.NewDense(3))
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	net.Hybridize()
	grad := func(x *eager.NDArray) *eager.NDArray {
		x.AttachGrad()
		var loss ops.Tensor
		eager.Record(func() { loss = eager.F.Sum(net.Forward(x)) })
		g, err := eager.Grad([]*eager.NDArray{loss.(*eager.NDArray)}, []*eager.NDArray{x}, nil, false, false)
		if err != nil {
			t.Fatal(err)
		}
		return g[0]
	}
	first := grad(eager.RandomNormal(4, 5))
	kept := first.Float64s()
	second := grad(eager.RandomNormal(4, 5))
	if !slices.Equal(first.Float64s(), kept) {
		t.Fatalf("a later step changed an earlier gradient: %v, was %v", first.Float64s(), kept)
	}
	if slices.Equal(second.Float64s(), kept) {
		t.Fatalf("two inputs gave the same gradient %v; the test needs them to differ", kept)
	}
}
