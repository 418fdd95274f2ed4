package vision

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// zooNet is what the tests need of a network.
type zooNet interface {
	Initialize(...nn.InitializeOptions) error
	Hybridize(...nn.HybridizeOptions)
	Forward(ops.Tensor) ops.Tensor
	InferShape(...ops.Tensor) error
	Export(string, int) error
	SaveParameters(string, ...bool) error
	CollectParams(...string) *nn.ParameterDict
	Prefix() string
}

// zooCase is one network: how to make it, the input side it runs on, the
// published parameter count in millions (0: not asserted), its top name
// ("mobilenetv2") and the first parameter names under it, in order.
type zooCase struct {
	name    string
	net     func() zooNet
	size    int
	million float64
	top     string
	first   []string
}

// zooTrace traces the network on a batch of one size x size image,
// without running it, and returns its parameters' names under its
// prefix and the number of values of those that learn.
func zooTrace(t *testing.T, net zooNet, size int) (names []string, learned int) {
	t.Helper()
	if err := net.InferShape(graph.Var("data", ops.Shape{1, 3, size, size}, ops.Float32)); err != nil {
		t.Fatal(err)
	}
	for _, p := range net.CollectParams().List() {
		names = append(names, strings.TrimPrefix(p.Name(), net.Prefix()))
		if p.GradReq() != eager.GradNull {
			learned += p.Shape().Size()
		}
	}
	return names, learned
}

// zooCheck checks a network's name, first parameter names and parameter
// count against MXNet's.
func zooCheck(t *testing.T, tc zooCase) {
	t.Helper()
	net := tc.net()
	if !regexp.MustCompile("^" + tc.top + `\d+_$`).MatchString(net.Prefix()) {
		t.Errorf("prefix %q, want %s<n>_", net.Prefix(), tc.top)
	}
	names, learned := zooTrace(t, net, tc.size)
	if len(names) < len(tc.first) || strings.Join(names[:len(tc.first)], " ") != strings.Join(tc.first, " ") {
		t.Errorf("first parameters %v, want %v", names[:min(len(names), len(tc.first))], tc.first)
	}
	if got := math.Round(float64(learned)/1e4) / 100; tc.million != 0 && got != tc.million {
		t.Errorf("%d parameters (%.2fM), want %.2fM", learned, got, tc.million)
	}
}

// zooEagerHybrid runs the network eagerly, then hybridized, on one
// random image and checks the two agree and have classes outputs.
func zooEagerHybrid(t *testing.T, net zooNet, size, classes int) {
	t.Helper()
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	x := eager.RandomNormal(1, 3, size, size)
	eagerOut := net.Forward(x).(*eager.NDArray).Float32s()
	net.Hybridize()
	hybridOut := net.Forward(x).(*eager.NDArray).Float32s()
	if len(eagerOut) != classes || len(hybridOut) != classes {
		t.Fatalf("%d outputs eagerly, %d hybridized, want %d", len(eagerOut), len(hybridOut), classes)
	}
	scale := 0.0
	for _, v := range eagerOut {
		scale = math.Max(scale, math.Abs(float64(v)))
	}
	for i := range eagerOut {
		if d := math.Abs(float64(eagerOut[i] - hybridOut[i])); d > 1e-4*(1+scale) {
			t.Fatalf("output %d: %g eagerly, %g hybridized", i, eagerOut[i], hybridOut[i])
		}
	}
}

func TestMobileNet(t *testing.T) {
	first := []string{"conv0_weight", "batchnorm0_gamma", "batchnorm0_beta",
		"batchnorm0_running_mean", "batchnorm0_running_var", "conv1_weight"}
	firstV2 := []string{"features_conv0_weight", "features_batchnorm0_gamma", "features_batchnorm0_beta",
		"features_batchnorm0_running_mean", "features_batchnorm0_running_var",
		"features_linearbottleneck0_conv0_weight"}
	// The counts are those of the Gluon model zoo's table.
	cases := []zooCase{
		{"mobilenet1_0", func() zooNet { return MobileNet1_0() }, 32, 4.23, "mobilenet", first},
		{"mobilenet0_75", func() zooNet { return MobileNet0_75() }, 32, 2.59, "mobilenet", first},
		{"mobilenet0_5", func() zooNet { return MobileNet0_5() }, 32, 1.33, "mobilenet", first},
		{"mobilenet0_25", func() zooNet { return MobileNet0_25() }, 32, 0.47, "mobilenet", first},
		{"mobilenet_v2_1_0", func() zooNet { return MobileNetV2_1_0() }, 32, 3.50, "mobilenetv2", firstV2},
		{"mobilenet_v2_0_75", func() zooNet { return MobileNetV2_0_75() }, 32, 2.63, "mobilenetv2", firstV2},
		{"mobilenet_v2_0_5", func() zooNet { return MobileNetV2_0_5() }, 32, 1.96, "mobilenetv2", firstV2},
		{"mobilenet_v2_0_25", func() zooNet { return MobileNetV2_0_25() }, 32, 1.52, "mobilenetv2", firstV2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			zooCheck(t, tc)
			zooEagerHybrid(t, tc.net(), tc.size, 1000)
		})
	}
}

// TestMobileNetNames checks names further in than the first ones: the
// last layers, and MobileNetV2's graph nodes as MXNet's export writes them.
func TestMobileNetNames(t *testing.T) {
	v1 := NewMobileNet(1, Options{Classes: 10})
	names, _ := zooTrace(t, v1, 32)
	if want := "conv26_weight batchnorm26_gamma batchnorm26_beta batchnorm26_running_mean batchnorm26_running_var dense0_weight dense0_bias"; strings.Join(names[len(names)-7:], " ") != want {
		t.Errorf("MobileNet's last parameters %v, want %s", names[len(names)-7:], want)
	}
	v2 := NewMobileNetV2(1, Options{Classes: 10})
	names, _ = zooTrace(t, v2, 32)
	if want := "features_linearbottleneck16_batchnorm2_running_var features_conv1_weight"; strings.Join(names[len(names)-7:len(names)-5], " ") != want {
		t.Errorf("MobileNetV2's parameters before the last convolution %v, want %s", names[len(names)-7:len(names)-5], want)
	}
	if last := names[len(names)-1]; last != "output_pred_weight" {
		t.Errorf("MobileNetV2's last parameter %s, want output_pred_weight", last)
	}

	if err := v2.Initialize(); err != nil {
		t.Fatal(err)
	}
	v2.Hybridize()
	v2.Forward(eager.RandomNormal(1, 3, 32, 32))
	path := filepath.Join(t.TempDir(), "mobilenetv2")
	if err := v2.Export(path, 0); err != nil {
		t.Fatal(err)
	}
	symbol, err := os.ReadFile(path + "-symbol.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range []string{"features_conv0_fwd", "features_batchnorm0_fwd", "features_relu60_relu6",
		"features_linearbottleneck0_conv1_fwd", "features_linearbottleneck0_relu61_relu6",
		"features_linearbottleneck16_batchnorm2_fwd", "output_pred_fwd"} {
		if !strings.Contains(string(symbol), `"`+v2.Prefix()+node+`"`) {
			t.Errorf("the exported graph has no node %s%s", v2.Prefix(), node)
		}
	}
}

func TestMobileNetBadArguments(t *testing.T) {
	cases := []struct {
		name string
		make func()
		want string
	}{
		{"multiplier", func() { NewMobileNet(0.2) }, "multiplier is 0.2"},
		{"v2 multiplier", func() { NewMobileNetV2(0) }, "multiplier is 0"},
		{"classes", func() { NewMobileNet(1, Options{Classes: -1}) }, "Classes=-1 must not be negative"},
		{"two options", func() { NewMobileNetV2(1, Options{}, Options{}) }, "vision.NewMobileNetV2 takes at most one Options, got 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("panic %v, want one saying %q", r, tc.want)
				}
			}()
			tc.make()
		})
	}
}

// A MobileNetV2 for 10 classes, run on a 32x32 image; its parameters are
// named as MXNet names them.
func ExampleNewMobileNetV2() {
	net := NewMobileNetV2(1, Options{Classes: 10})
	if err := net.Initialize(); err != nil {
		panic(err)
	}
	net.Hybridize()
	out := net.Forward(eager.RandomNormal(1, 3, 32, 32))
	fmt.Println(out.Shape())
	params := net.CollectParams("linearbottleneck0_conv1").List()
	fmt.Println(strings.TrimPrefix(params[0].Name(), net.Prefix()), params[0].Shape())
	// Output:
	// 1x10
	// features_linearbottleneck0_conv1_weight 32x1x3x3
}
