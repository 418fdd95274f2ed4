package loss_test

import (
	"fmt"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn/loss"
)

// Two samples, three classes: the loss of each is -log softmax(pred)[label].
func ExampleNewSoftmaxCrossEntropyLoss() {
	pred := eager.Array([]float32{1, 2, 3, 0, 0, 0}, 2, 3)
	label := eager.Array([]float32{2, 0}, 2)
	l := loss.NewSoftmaxCrossEntropyLoss().Loss(pred, label)
	fmt.Printf("%v %.4f\n", l.Shape(), l.(*eager.NDArray).Float64s())
	// Output: 2 [0.4076 1.0986]
}

// Options weigh the whole loss; a sample weight scales each sample's.
func ExampleNewL2Loss() {
	pred := eager.Array([]float32{1, 2, 3, 4}, 2, 2)
	label := eager.Array([]float32{0, 2, 1, 1}, 2, 2)
	sampleWeight := eager.Array([]float32{1, 0}, 2, 1)
	l := loss.NewL2Loss(loss.Options{Weight: 2}).Loss(pred, label, sampleWeight)
	fmt.Println(l.(*eager.NDArray).Float64s())
	// Output: [0.5 0]
}
