package vision_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/internal/torchtest"
	"github.com/hybridgo/hybridgo/nn/vision"
	"github.com/hybridgo/hybridgo/ops"
)

// torchvisionScript builds each torchvision model named in its arguments
// ("resnet18=64": the model and the side of its input image) with 10
// classes, gives every parameter and running statistic random values
// (the batch norms' too, so that they are checked), runs it in eval mode
// on a random image and writes into the directory of its first argument
// NAME.bin, the state dict, the image and the output as little-endian
// float32, and NAME.json, where each tensor lies in it: its name, shape,
// offset in values and, for the state dict, the kind of its module.
const torchvisionScript = `
import json, math, sys
import torch, torchvision

torch.set_num_threads(1)
out = sys.argv[1]
for spec in sys.argv[2:]:
    name, size = spec.split("=")
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(num_classes=10)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, (torch.nn.Conv2d, torch.nn.Linear)):
                bound = math.sqrt(6 / module.weight[0].numel())
                module.weight.uniform_(-bound, bound)
                if module.bias is not None:
                    module.bias.uniform_(-0.1, 0.1)
            elif isinstance(module, torch.nn.BatchNorm2d):
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.5, 0.5)
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 1.5)
        if name == "mobilenet_v2":
            model.classifier[1].bias.zero_()  # Gluon's output convolution has no bias
        model.eval()
        x = torch.rand(1, 3, int(size), int(size))
        y = model(x)
    kinds = {n: type(m).__name__ for n, m in model.named_modules()}
    index = {"params": []}
    offset = 0
    with open(f"{out}/{name}.bin", "wb") as f:
        def write(key, t):
            global offset
            t = t.detach().to(torch.float32).contiguous()
            f.write(t.numpy().astype("<f4").tobytes())
            entry = {"name": key, "shape": list(t.shape), "offset": offset}
            offset += t.numel()
            return entry
        for key, t in model.state_dict().items():
            entry = write(key, t)
            entry["kind"] = kinds[key.rpartition(".")[0]]
            index["params"].append(entry)
        index["input"] = write("input", x)
        index["output"] = write("output", y)
    with open(f"{out}/{name}.json", "w") as f:
        json.dump(index, f)
`

// torchTensor is where a tensor lies in the script's NAME.bin.
type torchTensor struct {
	Name   string
	Kind   string // the module's class: Conv2d, BatchNorm2d, Linear
	Shape  []int
	Offset int
}

// torchModel is the script's NAME.json.
type torchModel struct {
	Params        []torchTensor
	Input, Output torchTensor
}

// torchvisionCase is a torchvision model that computes what a Gluon model
// computes, and how the names of its parameters map to Gluon's
// structural names (those of save_parameters).
type torchvisionCase struct {
	gluon, torch string
	size         int  // the side of the input image: the smallest at which both compute the same
	race         bool // checked in a race build too (every case is checked without one, by make zoo)
	// block maps a torchvision module to the Gluon block that holds its
	// parameters ("layer1.0.bn1" to "features.4.0.body.1"), "" if none.
	block func(module string) string
	// zero names torchvision tensors Gluon has no parameter for, which
	// the script sets to zero (the test checks that they are).
	zero []string
	// reshape gives the Gluon shape of a tensor of the same values in
	// another shape (a Dense's weight as a 1x1 convolution's).
	reshape map[string][]int
	// extra gives the Gluon parameters torchvision has no tensor for:
	// values that make their blocks an identity.
	extra func() []mxnet.NamedArray
}

// Gluon's and torchvision's networks differ, so these are the pairs that
// compute the same thing:
//
//   - resnet18_v1 and resnet34_v1 are torchvision's resnet18 and resnet34.
//     resnet50_v1 and deeper are not: Gluon's BottleneckV1 strides in its
//     first 1x1 convolution, torchvision's Bottleneck in the 3x3 one.
//     Gluon's V2 networks (pre-activation) are not in torchvision.
//   - vgg11 and vgg11_bn at 224x224 only, where torchvision's adaptive
//     7x7 average pool is an identity (elsewhere it resamples the
//     features); the other depths are the same code.
//   - alexnet at 224x224, where torchvision's adaptive 6x6 pool is an
//     identity; the channels (64, 192, 384, 256, 256) are the same.
//   - squeezenet1.0 and squeezenet1.1 at 224x224, where Gluon's final 13x13
//     average pool is global, as torchvision's adaptive one; both round
//     their max pools up.
//   - densenet121 at 224x224, where Gluon's final 7x7 average pool is
//     global, as torchvision's; both apply a ReLU before it.
//   - mobilenetv2_1.0 with two changes. Gluon's first bottleneck keeps its
//     1x1 expansion convolution (with batch norm and ReLU6) though its
//     expansion is 1, torchvision's leaves it out: it is set to an
//     identity (its input, a ReLU6's output, passes the ReLU6 unchanged).
//     Gluon's output is a 1x1 convolution without bias after the global
//     pool, torchvision's a Linear with bias: the bias is zero and the
//     weight is reshaped.
//
// torchvision has no MobileNet (v1); MobileNetV3 (GluonCV's) and
// Inception V3 are not checked.
var torchvisionCases = []torchvisionCase{
	{gluon: "resnet18_v1", torch: "resnet18", size: 64, block: resnetBlock, race: true},
	{gluon: "resnet34_v1", torch: "resnet34", size: 64, block: resnetBlock},
	// The features' lengths: 8 convolutions, each with its ReLU (and
	// batch norm), and 5 pools.
	{gluon: "vgg11", torch: "vgg11", size: 224, block: vggBlock(21)},
	{gluon: "vgg11_bn", torch: "vgg11_bn", size: 224, block: vggBlock(29)},
	{gluon: "alexnet", torch: "alexnet", size: 224, block: alexnetBlock},
	{gluon: "squeezenet1.0", torch: "squeezenet1_0", size: 224, block: squeezenetBlock},
	{gluon: "squeezenet1.1", torch: "squeezenet1_1", size: 224, block: squeezenetBlock},
	{gluon: "densenet121", torch: "densenet121", size: 224, block: densenetBlock},
	{gluon: "mobilenetv2_1.0", torch: "mobilenet_v2", size: 64, block: mobilenetV2Block, race: true,
		zero:    []string{"classifier.1.bias"},
		reshape: map[string][]int{"output.0.weight": {10, 1280, 1, 1}},
		extra:   func() []mxnet.NamedArray { return identityConvBN("features.3.out.0", "features.3.out.1", 32) }},
}

// TestTorchvision gives a torchvision model and the Gluon model that
// computes the same the same random parameters, every one of them mapped
// by name, and compares their outputs on the same image, eagerly and
// hybridized.
//
// The outputs agree to 1e-4 of the largest output's magnitude: float32
// rounding in sums of thousands of products over up to 120 layers, in
// another order than PyTorch's, stays below about 1e-5 of it (the test
// logs the error it finds), while a parameter in the wrong place or a
// layer that computes something else changes the outputs by their own
// magnitude.
//
// Under the race detector the networks at 224x224 (VGG and AlexNet take
// gigabytes there) and the deeper ResNet take minutes: a race build
// checks the two cheapest pairs, and `make test` checks every pair
// without the race detector (its zoo target).
func TestTorchvision(t *testing.T) {
	torchtest.Require(t)
	dir := t.TempDir()
	args := []string{dir}
	var cases []torchvisionCase
	for _, tc := range torchvisionCases {
		if raceDetector && !tc.race {
			t.Logf("%s: checked without the race detector (make zoo)", tc.gluon)
			continue
		}
		cases = append(cases, tc)
		args = append(args, fmt.Sprintf("%s=%d", tc.torch, tc.size))
	}
	torchtest.Run(t, dir, torchvisionScript, args...)
	for _, tc := range cases {
		t.Run(tc.gluon, func(t *testing.T) {
			file, x, want := torchParams(t, dir, tc)
			m, err := vision.GetModel(tc.gluon, vision.Options{Classes: 10})
			if err != nil {
				t.Fatal(err)
			}
			// A parameter of the model absent from the file, or one of the
			// file absent from the model, fails the load.
			if err := m.LoadParameters(file); err != nil {
				t.Fatal(err)
			}
			assertTorchClose(t, "eager", m.Forward(x), want)
			m.Hybridize()
			assertTorchClose(t, "hybridized", m.Forward(x), want)
		})
	}
}

// torchParams reads what the script wrote for tc and writes the
// parameters under their Gluon structural names into a params file, as
// Gluon's save_parameters would; it returns the file, the image and the
// output. Every torchvision tensor must map to a parameter, or be in
// tc.zero and zero, or be a batch norm's count of batches
// (num_batches_tracked, which only training reads).
func torchParams(t *testing.T, dir string, tc torchvisionCase) (file string, x, y *eager.NDArray) {
	t.Helper()
	var index torchModel
	js, err := os.ReadFile(filepath.Join(dir, tc.torch+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &index); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, tc.torch+".bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bin := &torchData{r: f}
	data := func(e torchTensor) *eager.NDArray {
		a, err := bin.next(e)
		if err != nil {
			t.Fatalf("%s.bin: %s: %v", tc.torch, e.Name, err)
		}
		return a
	}
	var params []mxnet.NamedArray
	mapped := map[string]string{} // Gluon name: torchvision name
	for _, e := range index.Params {
		module, leaf := splitLast(e.Name)
		if slices.Contains(tc.zero, e.Name) {
			if slices.ContainsFunc(data(e).Float64s(), func(v float64) bool { return v != 0 }) {
				t.Errorf("%s is not zero: Gluon has no parameter for it", e.Name)
			}
			continue
		}
		if e.Kind == "BatchNorm2d" && leaf == "num_batches_tracked" {
			data(e)
			continue
		}
		a := data(e)
		block := tc.block(module)
		name := torchLeaf(e.Kind, leaf)
		if block == "" || name == "" {
			t.Errorf("torchvision's %s (%s) maps to no Gluon parameter", e.Name, e.Kind)
			continue
		}
		name = block + "." + name
		if other, dup := mapped[name]; dup {
			t.Errorf("torchvision's %s and %s both map to %s", other, e.Name, name)
			continue
		}
		mapped[name] = e.Name
		if shape, ok := tc.reshape[name]; ok {
			a = a.Reshape(shape...)
		}
		params = append(params, mxnet.NamedArray{Name: name, Array: a})
	}
	if t.Failed() {
		t.FailNow()
	}
	if tc.extra != nil {
		params = append(params, tc.extra()...)
	}
	x, y = data(index.Input), data(index.Output)
	file = filepath.Join(dir, tc.gluon+".params")
	if err := mxnet.SaveParams(file, params); err != nil {
		t.Fatal(err)
	}
	return file, x, y
}

// torchData reads the tensors of the script's NAME.bin in order.
type torchData struct {
	r   io.Reader
	at  int // the offset of the next value
	buf [1 << 16]byte
}

// next reads the values of e, which must be the next tensor.
func (d *torchData) next(e torchTensor) (*eager.NDArray, error) {
	if e.Offset != d.at {
		return nil, fmt.Errorf("at offset %d, want %d", e.Offset, d.at)
	}
	shape := ops.Shape(e.Shape)
	values := make([]float32, shape.Size())
	for i := 0; i < len(values); {
		n := min(len(values)-i, len(d.buf)/4)
		if _, err := io.ReadFull(d.r, d.buf[:4*n]); err != nil {
			return nil, err
		}
		for j := range n {
			values[i+j] = math.Float32frombits(binary.LittleEndian.Uint32(d.buf[4*j:]))
		}
		i += n
	}
	d.at += len(values)
	return eager.FromValue(ops.Value{Shape: shape, DType: ops.Float32, Data: values}), nil
}

// torchLeaf is Gluon's name of a parameter of a torchvision module of
// the given kind, "" if Gluon has none.
func torchLeaf(kind, leaf string) string {
	switch kind {
	case "Conv2d", "Linear":
		if leaf == "weight" || leaf == "bias" {
			return leaf
		}
	case "BatchNorm2d":
		return map[string]string{"weight": "gamma", "bias": "beta", "running_mean": "running_mean", "running_var": "running_var"}[leaf]
	}
	return ""
}

// splitLast splits a dotted name before its last part.
func splitLast(name string) (string, string) {
	i := len(name) - 1
	for i >= 0 && name[i] != '.' {
		i--
	}
	return name[:max(i, 0)], name[i+1:]
}

// identityConvBN gives a 1x1 convolution of channels to channels and the
// batch norm after it the values that make them an identity, to rounding:
// an identity matrix, a scale of 1 and a shift of 0, a running mean of 0
// and a running variance of 1 less the batch norm's epsilon (1e-5).
func identityConvBN(conv, bn string, channels int) []mxnet.NamedArray {
	weight := make([]float32, channels*channels)
	for i := range channels {
		weight[i*channels+i] = 1
	}
	full := func(v float32) *eager.NDArray {
		a := make([]float32, channels)
		for i := range a {
			a[i] = v
		}
		return eager.Array(a, channels)
	}
	return []mxnet.NamedArray{
		{Name: conv + ".weight", Array: eager.Array(weight, channels, channels, 1, 1)},
		{Name: bn + ".gamma", Array: full(1)},
		{Name: bn + ".beta", Array: full(0)},
		{Name: bn + ".running_mean", Array: full(0)},
		{Name: bn + ".running_var", Array: full(1 - 1e-5)},
	}
}

// assertTorchClose checks that got and want agree to 1e-4 of want's
// largest magnitude, and logs how far apart they are.
func assertTorchClose(t *testing.T, what string, got ops.Tensor, want *eager.NDArray) {
	t.Helper()
	if !got.Shape().Equal(want.Shape()) {
		t.Fatalf("%s: output shape %v, torchvision's %v", what, got.Shape(), want.Shape())
	}
	g, w := got.Float64s(), want.Float64s()
	scale := 0.0
	for _, v := range w {
		scale = max(scale, math.Abs(v))
	}
	worst := 0.0
	for i := range w {
		d := math.Abs(g[i] - w[i])
		if !(d <= 1e-4*scale) { // NaN fails too
			t.Fatalf("%s: output %d is %v, torchvision's %v (largest output %v)", what, i, g[i], w[i], scale)
		}
		worst = max(worst, d)
	}
	t.Logf("%s: largest difference %.2g of the largest output %.3g", what, worst/scale, scale)
}

// groups returns the submatches of pattern in s, nil if it does not match.
func groups(pattern, s string) []string { return regexp.MustCompile(pattern).FindStringSubmatch(s) }

// plus returns the decimal number s plus n.
func plus(s string, n int) int {
	i, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return i + n
}

// resnetBlock maps torchvision's ResNet with BasicBlocks to Gluon's
// ResNetV1: features are the stem's convolution, batch norm, ReLU and
// max pool, then the stages; a BasicBlockV1's body is a convolution, a
// batch norm, a ReLU, a convolution and a batch norm.
func resnetBlock(module string) string {
	switch module {
	case "conv1":
		return "features.0"
	case "bn1":
		return "features.1"
	case "fc":
		return "output"
	}
	g := groups(`^layer(\d)\.(\d+)\.(.+)$`, module)
	if g == nil {
		return ""
	}
	layer, ok := map[string]string{"conv1": "body.0", "bn1": "body.1", "conv2": "body.3", "bn2": "body.4",
		"downsample.0": "downsample.0", "downsample.1": "downsample.1"}[g[3]]
	if !ok {
		return ""
	}
	return fmt.Sprintf("features.%d.%s.%s", plus(g[1], 3), g[2], layer)
}

// vggBlock maps torchvision's VGG, whose features have n layers, to
// Gluon's: the features are the same layers, then Gluon's features go on
// with torchvision's classifier (Dense, Dropout, Dense, Dropout; the
// Dense layers flatten, torchvision's adaptive pool is an identity at
// 224x224) and its last Linear is Gluon's output.
func vggBlock(n int) func(string) string {
	return func(module string) string {
		if g := groups(`^features\.(\d+)$`, module); g != nil && plus(g[1], 0) < n {
			return module
		}
		return map[string]string{
			"classifier.0": fmt.Sprintf("features.%d", n),
			"classifier.3": fmt.Sprintf("features.%d", n+2),
			"classifier.6": "output",
		}[module]
	}
}

// alexnetBlock maps torchvision's AlexNet to Gluon's, whose convolutions
// hold their ReLU and whose features go on with the first two Dense
// layers, each followed by a Dropout.
func alexnetBlock(module string) string {
	return map[string]string{
		"features.0": "features.0", "features.3": "features.2", "features.6": "features.4",
		"features.8": "features.5", "features.10": "features.6",
		"classifier.1": "features.9", "classifier.4": "features.11", "classifier.6": "output",
	}[module]
}

// squeezenetBlock maps torchvision's SqueezeNet to Gluon's: the features
// have the same layers; a Fire module is a HybridSequential of the
// squeeze (a HybridSequential of a convolution and a ReLU) and a
// HybridConcurrent of the two expansions (each one such
// HybridSequential); the output's first layer is the final convolution.
func squeezenetBlock(module string) string {
	if g := groups(`^features\.(\d+)$`, module); g != nil {
		return module
	}
	if g := groups(`^(features\.\d+)\.(squeeze|expand1x1|expand3x3)$`, module); g != nil {
		return g[1] + map[string]string{"squeeze": ".0.0", "expand1x1": ".1.0.0", "expand3x3": ".1.1.0"}[g[2]]
	}
	if module == "classifier.1" {
		return "output.0"
	}
	return ""
}

// densenetBlock maps torchvision's DenseNet to Gluon's: the features are
// the stem's convolution, batch norm, ReLU and max pool, then each stage
// followed by its transition, then the final batch norm; a dense layer
// is a HybridConcurrent of an identity and the new features (batch norm,
// ReLU, convolution, batch norm, ReLU, convolution); a transition a
// batch norm, a ReLU, a convolution and an average pool.
func densenetBlock(module string) string {
	switch module {
	case "features.conv0":
		return "features.0"
	case "features.norm0":
		return "features.1"
	case "features.norm5":
		return "features.11"
	case "classifier":
		return "output"
	}
	if g := groups(`^features\.denseblock(\d)\.denselayer(\d+)\.(norm1|conv1|norm2|conv2)$`, module); g != nil {
		layer := map[string]int{"norm1": 0, "conv1": 2, "norm2": 3, "conv2": 5}[g[3]]
		return fmt.Sprintf("features.%d.%d.1.%d", 2+2*plus(g[1], 0), plus(g[2], -1), layer)
	}
	if g := groups(`^features\.transition(\d)\.(norm|conv)$`, module); g != nil {
		return fmt.Sprintf("features.%d.%d", 3+2*plus(g[1], 0), map[string]int{"norm": 0, "conv": 2}[g[2]])
	}
	return ""
}

// mobilenetV2Block maps torchvision's MobileNetV2 to Gluon's: the features
// are the stem's convolution, batch norm and ReLU6, the 17 bottlenecks,
// the last convolution, batch norm and ReLU6, and the global pool. A
// bottleneck's Out is the expansion's convolution, batch norm and ReLU6,
// the depthwise ones and the projection's convolution and batch norm;
// torchvision's first bottleneck lacks the expansion.
func mobilenetV2Block(module string) string {
	switch module {
	case "features.0.0":
		return "features.0"
	case "features.0.1":
		return "features.1"
	case "features.18.0":
		return "features.20"
	case "features.18.1":
		return "features.21"
	case "classifier.1":
		return "output.0"
	}
	g := groups(`^features\.(\d+)\.conv\.(.+)$`, module)
	if g == nil {
		return ""
	}
	layers := map[string]int{"0.0": 0, "0.1": 1, "1.0": 3, "1.1": 4, "2": 6, "3": 7}
	if g[1] == "1" {
		layers = map[string]int{"0.0": 3, "0.1": 4, "1": 6, "2": 7}
	}
	layer, ok := layers[g[2]]
	if !ok {
		return ""
	}
	return fmt.Sprintf("features.%d.out.%d", plus(g[1], 2), layer)
}
