package vision_test

import (
	"fmt"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn/vision"
)

func ExampleGetModel() {
	net, err := vision.GetModel("resnet18_v1", vision.Options{Classes: 10, Thumbnail: true})
	if err != nil {
		panic(err)
	}
	if err := net.Initialize(); err != nil {
		panic(err)
	}
	x := eager.RandomUniform(4, 3, 32, 32) // a batch of four 32x32 RGB images
	y := net.Forward(x)
	fmt.Println(y.Shape())
	// The parameters are named as Gluon names them, after the model
	// (resnetv10, resnetv11, … as models are made).
	for _, name := range net.CollectParams().Names()[:2] {
		fmt.Println(strings.TrimPrefix(name, net.Name()+"_"))
	}
	// Output:
	// 4x10
	// conv0_weight
	// stage1_conv0_weight
}

func ExampleDenseNet121() {
	net := vision.DenseNet121(vision.Options{Classes: 10})
	if err := net.Initialize(); err != nil {
		panic(err)
	}
	y := net.Forward(eager.RandomUniform(1, 3, 224, 224))
	fmt.Println(y.Shape())
	// The first dense layer's parameters are in the stage1_ scope.
	for _, name := range net.CollectParams().Names()[:6] {
		fmt.Println(strings.TrimPrefix(name, net.Name()+"_"))
	}
	// Output:
	// 1x10
	// conv0_weight
	// batchnorm0_gamma
	// batchnorm0_beta
	// batchnorm0_running_mean
	// batchnorm0_running_var
	// stage1_batchnorm0_gamma
}
