package data_test

import (
	"fmt"

	"github.com/hybridgo/hybridgo/data"
	"github.com/hybridgo/hybridgo/eager"
)

func ExampleNewDataLoader() {
	// Five samples of two features each, and their labels.
	x := eager.Array([]float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 5, 2)
	y := eager.Array([]float32{10, 11, 12, 13, 14})
	ds, err := data.NewArrayDataset(x, y)
	if err != nil {
		fmt.Println(err)
		return
	}
	loader, err := data.NewDataLoader(ds, data.LoaderOptions{BatchSize: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(loader.NumBatches(), "batches")
	for batch, err := range loader.Epoch() {
		if err != nil {
			fmt.Println(err)
			return
		}
		xb, yb := batch[0], batch[1]
		fmt.Println(xb.Shape(), yb.Shape(), xb.Float32s(), yb.Float32s())
	}
	// Output:
	// 3 batches
	// 2x2 2 [0 1 2 3] [10 11]
	// 2x2 2 [4 5 6 7] [12 13]
	// 1x2 1 [8 9] [14]
}

func ExampleNewDataLoader_rollover() {
	ds, _ := data.NewArrayDataset(eager.Array([]float32{0, 1, 2, 3, 4}))
	loader, _ := data.NewDataLoader(ds, data.LoaderOptions{BatchSize: 2, LastBatch: "rollover"})
	for epoch := range 2 {
		fmt.Print("epoch ", epoch, ":")
		for batch := range loader.Epoch() {
			fmt.Print(" ", batch[0].Float32s())
		}
		fmt.Println()
	}
	// Output:
	// epoch 0: [0 1] [2 3]
	// epoch 1: [4 0] [1 2] [3 4]
}

func ExampleTransformFirst() {
	ds, _ := data.NewArrayDataset(eager.Array([]float32{0, 255, 51}), eager.Array([]float32{1, 2, 3}))
	scaled := data.TransformFirst(ds, func(x *eager.NDArray) (*eager.NDArray, error) {
		return eager.F.DivScalar(x, 255).(*eager.NDArray), nil
	})
	s, _ := scaled.Get(2)
	fmt.Printf("%.2f %v\n", s[0].Scalar(), s[1].Scalar())
	// Output:
	// 0.20 3
}

func ExampleFashionMNIST() {
	train, err := data.FashionMNIST("", true) // "" reads data.FashionMNISTDir
	if err != nil {
		fmt.Println(err) // says how to install the dataset
		return
	}
	s, _ := train.Get(0)
	fmt.Println(train.Len(), s[0].Shape(), data.FashionMNISTClasses[int(s[1].Scalar())])
}
