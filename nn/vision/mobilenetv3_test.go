package vision

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
)

func TestMobileNetV3(t *testing.T) {
	// The counts are torchvision's published ones for the same networks
	// (5,483,032 and 2,542,856) adjusted for GluonCV's head: a 1x1
	// convolution to 1280 channels without bias, then one to the
	// classes with bias, where torchvision has two Dense layers with
	// bias, through 1280 (large) or 1024 (small) units.
	cases := []struct {
		name    string
		net     func() *MobileNetV3
		learned int
		blocks  int
	}{
		{"mobilenetv3_large", func() *MobileNetV3 { return MobileNetV3Large() }, 5483032 - 1280, 15},
		{"mobilenetv3_small", func() *MobileNetV3 { return MobileNetV3Small() }, 2542856 - (576*1024 + 1024 + 1024*1000 + 1000) + (576*1280 + 1280*1000 + 1000), 11},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			net := tc.net()
			if net.Prefix() != "" {
				t.Errorf("prefix %q, want GluonCV's empty one", net.Prefix())
			}
			names, learned := zooTrace(t, net, 224)
			if learned != tc.learned {
				t.Errorf("%d learned parameters, want %d", learned, tc.learned)
			}
			first := []string{"first-3x3-conv-conv2d_weight", "first-3x3-conv-batchnorm_gamma",
				"first-3x3-conv-batchnorm_beta", "first-3x3-conv-batchnorm_running_mean",
				"first-3x3-conv-batchnorm_running_var"}
			if got := strings.Join(names[:len(first)], " "); got != strings.Join(first, " ") {
				t.Errorf("first parameters %s, want %s", got, strings.Join(first, " "))
			}
			if got := strings.Join(names[len(names)-3:], " "); got != "last-1x1-conv2-conv2d_weight output_fc_weight output_fc_bias" {
				t.Errorf("last parameters %s", got)
			}
			for _, want := range []string{"_resunit0_seq-0-depthwise-conv2d_weight", "_resunit0_seq-0-linear-batchnorm_gamma",
				"_resunit1_seq-1-exp-conv2d_weight", "_resunit3_seq-3-se_fc1_weight", "_resunit3_seq-3-se_fc2_bias",
				"last-1x1-conv1-batchnorm_running_var"} {
				if !slices.Contains(names, want) {
					t.Errorf("no parameter %s", want)
				}
			}
			for i, want := range []bool{true, false} {
				block := fmt.Sprintf("_resunit%d_", tc.blocks-1+i)
				if got := slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, block) }); got != want {
					t.Errorf("parameters of block %s: %v, want %v (%d blocks)", block, got, want, tc.blocks)
				}
			}
			zooEagerHybrid(t, tc.net(), 64, 1000)
		})
	}
}

func TestMobileNetV3BadArguments(t *testing.T) {
	cases := []struct {
		name  string
		model string
		mult  float64
		want  string
	}{
		{"no such model", "medium", 1, `"medium"`},
		{"small multiplier", "large", 0.2, "0.2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(error).Error(), tc.want) {
					t.Errorf("panic %v, want one containing %s", r, tc.want)
				}
			}()
			NewMobileNetV3(tc.model, tc.mult)
		})
	}
}

// TestMobileNetV3Export exports MobileNetV3Small, checks GluonCV's node
// names, which have no network prefix, and loads the exported
// parameters into a fresh network by name.
func TestMobileNetV3Export(t *testing.T) {
	net := MobileNetV3Small(Options{Classes: 10})
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	net.Hybridize()
	x := eager.RandomUniform(1, 3, 64, 64)
	want := net.Forward(x).(*eager.NDArray).Float32s()
	prefix := filepath.Join(t.TempDir(), "mobilenetv3_small")
	if err := net.Export(prefix, 0); err != nil {
		t.Fatal(err)
	}
	sym, err := mxnet.LoadSymbol(prefix + "-symbol.json")
	if err != nil {
		t.Fatal(err)
	}
	var nodes []string
	for _, n := range sym.Graph().Nodes {
		nodes = append(nodes, n.Name)
	}
	// GluonCV's HardSwish, HardSigmoid and _SE make their children outside
	// their name scopes, and the operators on Symbols are named by MXNet's
	// stems (_plusscalar, _divscalar, _mul).
	for _, name := range []string{"first-3x3-conv-conv2d_fwd", "_resunit0_seq-0-depthwise-conv2d_fwd",
		"_resunit0_seq-0-se_fc1_fwd", "_resunit10_seq-10-linear-batchnorm_fwd", "_resunit10__plus0", "output_fc_fwd",
		"hardsigmoid0__plusscalar0", "relu60_relu6", "hardsigmoid0__divscalar0", "hardswish0__mul0",
		"_resunit0_relu60_relu6", "_resunit0__se0_broadcast_mul0", "_resunit3_hardswish0__mul0"} {
		if !slices.Contains(nodes, name) {
			t.Errorf("no node %s in %v", name, nodes)
		}
	}
	fresh := MobileNetV3Small(Options{Classes: 10})
	if err := fresh.LoadParameters(prefix + "-0000.params"); err != nil {
		t.Fatal(err)
	}
	got := fresh.Forward(x).(*eager.NDArray).Float32s()
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-4 {
			t.Fatalf("output %d: %g loaded from the export, %g before", i, got[i], want[i])
		}
	}
}

// GluonCV gives MobileNetV3 an empty prefix; its messages still name it.
func TestMobileNetV3Name(t *testing.T) {
	if got := MobileNetV3Small().Name(); got != "mobilenetv3" {
		t.Errorf("Name() = %q, want mobilenetv3", got)
	}
}
