package eager_test

import (
	"fmt"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

func ExampleArray() {
	x := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	fmt.Println(x)
	fmt.Println(x.Shape(), x.DType(), x.At(1, 2))
	// Output:
	// [[1. 2. 3.]
	//  [4. 5. 6.]]
	// <NDArray 2x3 @cpu(0)>
	// 2x3 float32 6
}

func ExampleRecord() {
	x := eager.Array([]float32{1, 2, 3})
	x.AttachGrad()
	var y *eager.NDArray
	eager.Record(func() {
		y = eager.F.Sum(eager.F.Mul(x, x)).(*eager.NDArray)
	})
	if err := y.Backward(); err != nil {
		fmt.Println(err)
	}
	fmt.Println(x.Grad())
	// Output:
	// [2. 4. 6.]
	// <NDArray 3 @cpu(0)>
}

func ExampleGrad() {
	// The second derivative of tanh: record the first gradient, then
	// differentiate it.
	x := eager.Array([]float64{0.5})
	x.AttachGrad()
	var dx *eager.NDArray
	eager.Record(func() {
		y := eager.F.Tanh(x).(*eager.NDArray)
		g, _ := eager.Grad([]*eager.NDArray{y}, []*eager.NDArray{x}, nil, true, true)
		dx = g[0]
	})
	dx.Backward()
	fmt.Printf("tanh'(0.5) = %.6f, tanh''(0.5) = %.6f\n", dx.Scalar(), x.Grad().Scalar())
	// Output:
	// tanh'(0.5) = 0.786448, tanh''(0.5) = -0.726862
}

func ExampleNDArray_AsType() {
	x := eager.Array([]float32{1.5, -2.7})
	fmt.Println(x.AsType(ops.Int32))
	// Output:
	// [ 1 -2]
	// <NDArray 2 int32 @cpu(0)>
}

func Example_broadcasting() {
	F := eager.F
	a := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := eager.Array([]float32{10, 20, 30})
	fmt.Println(F.Add(a, b))
	// Output:
	// [[11. 22. 33.]
	//  [14. 25. 36.]]
	// <NDArray 2x3 @cpu(0)>
}
