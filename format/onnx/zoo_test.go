package onnx_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/format/onnx"
	"github.com/hybridgo/hybridgo/nn/vision"
	"github.com/hybridgo/hybridgo/ops"
)

// zooModels are the model-zoo networks checked against ONNX Runtime, at
// the smallest input each takes: ResNet, MobileNet and VGG end in global
// pooling or flatten whatever their features give, so 32x32 images do
// (ResNet's stem is checked both ways: the thumbnail stem on
// resnet18_v1 and resnet50_v2);
// AlexNet's three 3x3 max poolings need 64x64; SqueezeNet's final 13x13
// pooling needs 224x224, as does DenseNet's final 7x7 one; Inception v3's
// final 8x8 pooling needs 299x299. Those large inputs run at batch 1
// only.
//
// Under the race detector (raceDetector), which makes the forward passes
// and the writing of the parameters ten to twenty times slower, only the
// models marked race run: ResNet's two thumbnail models, SqueezeNet and
// the MobileNets. VGG and AlexNet, whose wide dense layers take minutes
// and gigabytes under it, DenseNet and Inception v3 at 224 and 299
// pixels, have no op the others lack. Without it every model runs, as
// `make test` does in its zoo target.
var zooModels = []struct {
	name    string
	opts    vision.Options
	size    int   // the height and width of the input images
	batches []int // the first is the batch it is traced and exported at
	race    bool  // run under the race detector too
}{
	{"resnet18_v1", vision.Options{Classes: 10, Thumbnail: true}, 32, []int{2, 3}, true},
	{"resnet34_v1", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"resnet50_v1", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"resnet101_v1", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"resnet152_v1", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"resnet18_v2", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"resnet34_v2", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"resnet50_v2", vision.Options{Classes: 10, Thumbnail: true}, 32, []int{1, 2}, true},
	{"resnet101_v2", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"resnet152_v2", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"vgg11", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"vgg13", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"vgg16", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"vgg19", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"vgg11_bn", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"vgg13_bn", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"vgg16_bn", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"vgg19_bn", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"alexnet", vision.Options{Classes: 10}, 64, []int{1, 2}, false},
	{"densenet121", vision.Options{Classes: 10}, 224, []int{1}, false},
	{"densenet161", vision.Options{Classes: 10}, 224, []int{1}, false},
	{"densenet169", vision.Options{Classes: 10}, 224, []int{1}, false},
	{"densenet201", vision.Options{Classes: 10}, 224, []int{1}, false},
	{"squeezenet1.0", vision.Options{Classes: 10}, 224, []int{1, 2}, false},
	{"squeezenet1.1", vision.Options{Classes: 10}, 224, []int{1, 2}, true},
	{"inceptionv3", vision.Options{Classes: 10}, 299, []int{1}, false},
	{"mobilenet1.0", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"mobilenet0.75", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"mobilenet0.5", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"mobilenet0.25", vision.Options{Classes: 10}, 32, []int{2, 3}, true},
	{"mobilenetv2_1.0", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"mobilenetv2_0.75", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"mobilenetv2_0.5", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"mobilenetv2_0.25", vision.Options{Classes: 10}, 32, []int{2, 3}, true},
	{"mobilenetv3_large", vision.Options{Classes: 10}, 32, []int{1, 2}, false},
	{"mobilenetv3_small", vision.Options{Classes: 10}, 32, []int{1, 2}, true},
}

// TestModelZooONNXRuntime does with each model of the zoo what a user
// converting one does: initialise it, run it hybridized, Export it to
// MXNet's files, convert those to ONNX as `hybridgo convert` does, and run
// the ONNX model in ONNX Runtime at one or two batch sizes, whose outputs
// must be the network's own. Every model of the zoo must be in
// zooModels.
func TestModelZooONNXRuntime(t *testing.T) {
	modules := onnxRuntime(t)
	dir := t.TempDir()
	var runs []ortRun
	var checks []check
	names := map[string]bool{}
	for i, zm := range zooModels {
		names[zm.name] = true
		if raceDetector && !zm.race {
			continue
		}
		eager.Seed(uint64(i + 1))
		net, err := vision.GetModel(zm.name, zm.opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := net.Initialize(); err != nil {
			t.Fatal(err)
		}
		net.Hybridize()
		var inputs, outputs []*eager.NDArray
		for _, batch := range zm.batches {
			x := eager.RandomUniform(batch, 3, zm.size, zm.size)
			inputs = append(inputs, x)
			if batch == zm.batches[0] {
				outputs = append(outputs, net.Forward(x).(*eager.NDArray))
			}
		}
		// Export traces the first batch; the other batches run after it.
		prefix := filepath.Join(dir, zm.name)
		if err := net.Export(prefix, 0); err != nil {
			t.Fatal(err)
		}
		for _, x := range inputs[1:] {
			outputs = append(outputs, net.Forward(x).(*eager.NDArray))
		}
		sym, params, err := mxnet.LoadCheckpoint(prefix, 0)
		if err != nil {
			t.Fatal(err)
		}
		path := prefix + ".onnx"
		shape := ops.Shape{zm.batches[0], 3, zm.size, zm.size}
		if err := onnx.SaveModel(path, sym, params, onnx.Options{InputShapes: map[string]ops.Shape{"data": shape}}); err != nil {
			t.Fatalf("%s: %v", zm.name, err)
		}
		m, err := onnx.LoadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Graph.Outputs) != 1 {
			t.Fatalf("%s: %d outputs, want 1", zm.name, len(m.Graph.Outputs))
		}
		if got := m.Graph.Inputs[0].Shape[0].Param; got != onnx.BatchDim {
			t.Errorf("%s: the batch dim of the input is %q, want %q", zm.name, got, onnx.BatchDim)
		}
		for j, x := range inputs {
			runs = append(runs, ortRun{Model: path, Feeds: map[string]ortTensor{"data": {Dims: x.Shape(), Data: x.Float64s()}}})
			checks = append(checks, check{fmt.Sprintf("%s at batch %d", zm.name, zm.batches[j]), []string{m.Graph.Outputs[0].Name}, outputs[j : j+1]})
		}
	}
	for _, name := range vision.Models() {
		if !names[name] {
			t.Errorf("model %s of the zoo is not checked: add it to zooModels", name)
		}
	}
	checkResults(t, checks, runORT(t, modules, dir, runs))
}
