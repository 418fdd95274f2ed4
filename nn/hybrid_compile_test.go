package nn

import (
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// TestFirstRecordedCallCompilesOnce: a hybridized block whose parameters
// get their shapes on its first call, made inside Record, compiles one
// graph for its calls on the tape. (Before the trace the block knows no
// parameter that needs a gradient, so the first call was once compiled
// for another signature than the later ones, and its frame of buffers
// stayed alive beside theirs.)
func TestFirstRecordedCallCompilesOnce(t *testing.T) {
	net := NewHybridSequential(NewDense(8, DenseOptions{Act: "relu"}), NewDense(3))
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	net.Hybridize()
	x := eager.RandomNormal(4, 5)
	for step := range 3 {
		var loss ops.Tensor
		eager.Record(func() { loss = eager.F.Sum(net.Forward(x)) })
		if err := loss.(*eager.NDArray).Backward(); err != nil {
			t.Fatal(err)
		}
		if n := len(net.cache); n != 1 {
			t.Fatalf("after step %d the block holds %d compiled graphs, want 1", step, n)
		}
	}
}
