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

// zooModels are the model-zoo networks checked against ONNX Runtime: one
// of each family, at the smallest input it takes (VGG and AlexNet flatten
// whatever their features give; SqueezeNet's final 13x13 pooling needs
// 224x224 images). VGG's cost is its 4096-wide dense layers, the same
// with and without batch norm, so only vgg11_bn runs.
var zooModels = []struct {
	name    string
	opts    vision.Options
	size    int   // the height and width of the input images
	batches []int // the first is the batch it is traced and exported at
}{
	{"resnet18_v1", vision.Options{Classes: 10, Thumbnail: true}, 32, []int{2, 3}},
	{"resnet50_v2", vision.Options{Classes: 10, Thumbnail: true}, 32, []int{1, 2}},
	{"mobilenet0.25", vision.Options{Classes: 10}, 32, []int{2, 3}},
	{"mobilenetv2_0.25", vision.Options{Classes: 10}, 32, []int{2, 3}},
	{"vgg11_bn", vision.Options{Classes: 10}, 32, []int{1, 2}},
	{"alexnet", vision.Options{Classes: 10}, 64, []int{1, 2}},
	{"squeezenet1.0", vision.Options{Classes: 10}, 224, []int{1, 2}},
	{"squeezenet1.1", vision.Options{Classes: 10}, 224, []int{1, 2}},
}

// TestModelZooONNXRuntime does with each model of the zoo what a user
// converting one does: initialise it, run it hybridized, Export it to
// MXNet's files, convert those to ONNX as `hybridgo convert` does, and run
// the ONNX model in ONNX Runtime at two batch sizes, whose outputs must
// be the network's own.
func TestModelZooONNXRuntime(t *testing.T) {
	modules := onnxRuntime(t)
	dir := t.TempDir()
	var runs []ortRun
	var checks []check
	for i, zm := range zooModels {
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
	checkResults(t, checks, runORT(t, modules, dir, runs))
}
