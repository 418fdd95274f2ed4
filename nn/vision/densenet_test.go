package vision

import (
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/nn"
)

func TestDenseNet(t *testing.T) {
	// The stem's convolution and batch norm come first, then the first
	// dense layer's batch norm in the stage1_ scope.
	first := []string{"conv0_weight", "batchnorm0_gamma", "batchnorm0_beta",
		"batchnorm0_running_mean", "batchnorm0_running_var", "stage1_batchnorm0_gamma"}
	// The last batch norm follows the stem's and the three transitions'.
	last := []string{"batchnorm4_gamma", "batchnorm4_beta", "batchnorm4_running_mean",
		"batchnorm4_running_var", "dense0_weight", "dense0_bias"}
	// The counts are those published with torchvision's DenseNet-BC, the
	// same networks: 7,978,856 (121), 28,681,000 (161), 14,149,480 (169)
	// and 20,013,928 (201).
	cases := []struct {
		name    string
		net     func() *DenseNet
		learned int
	}{
		{"densenet121", func() *DenseNet { return DenseNet121() }, 7978856},
		{"densenet161", func() *DenseNet { return DenseNet161() }, 28681000},
		{"densenet169", func() *DenseNet { return DenseNet169() }, 14149480},
		{"densenet201", func() *DenseNet { return DenseNet201() }, 20013928},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			zooCheck(t, zooCase{tc.name, func() zooNet { return tc.net() }, 224, 0, "densenet", first})
			names, learned := zooTrace(t, tc.net(), 224)
			if learned != tc.learned {
				t.Errorf("%d learned parameters, want %d", learned, tc.learned)
			}
			if got := strings.Join(names[len(names)-len(last):], " "); got != strings.Join(last, " ") {
				t.Errorf("last parameters %s, want %s", got, strings.Join(last, " "))
			}
		})
	}
}

// TestDenseNetNames checks the names of the first transition and of the
// second stage, which follow the first stage's 6 layers.
func TestDenseNetNames(t *testing.T) {
	names, _ := zooTrace(t, DenseNet121(Options{Classes: 10}), 224)
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	for _, want := range []string{"stage1_conv11_weight", "batchnorm1_gamma", "conv1_weight",
		"stage2_batchnorm0_gamma", "stage4_conv31_weight", "conv3_weight"} {
		if !have[want] {
			t.Errorf("no parameter %s", want)
		}
	}
	for _, absent := range []string{"stage1_conv12_weight", "conv4_weight", "batchnorm5_gamma"} {
		if have[absent] {
			t.Errorf("a parameter %s, which Gluon's DenseNet121 does not have", absent)
		}
	}
}

// TestDenseBlockEagerHybrid runs a small dense block and a transition,
// which take any image size, eagerly and hybridized: 3 channels, plus 2
// layers of 4, halved to 5 by the transition, of 4x4.
func TestDenseBlockEagerHybrid(t *testing.T) {
	net := sequential("", denseBlock(2, 4, 4, 0, 1), transition(5), nn.NewFlatten())
	zooEagerHybrid(t, net, 8, 5*4*4)
}

// TestDenseNetEagerHybrid runs DenseNet121 eagerly and hybridized (its
// export is checked by TestExport).
func TestDenseNetEagerHybrid(t *testing.T) {
	zooEagerHybrid(t, DenseNet121(Options{Classes: 10}), 224, 10)
}

func TestDenseNetOptions(t *testing.T) {
	net := DenseNet121(Options{Classes: 10, BNSize: 2, Dropout: 0.2})
	layer := net.Features.Layers[4].(*nn.HybridSequential).Layers[0].(*HybridConcurrent)
	features := layer.Layers[1].(*nn.HybridSequential)
	if n := len(features.Layers); n != 7 {
		t.Errorf("a dense layer with dropout has %d blocks, want 7", n)
	}
	if _, ok := features.Layers[6].(*nn.Dropout); !ok {
		t.Errorf("the last block of a dense layer is %T, want *nn.Dropout", features.Layers[6])
	}
	// bn_size 2: the bottleneck has 2*32 channels.
	names, learned := zooTrace(t, net, 224)
	if len(names) == 0 || learned == 0 {
		t.Fatal("no parameters")
	}
	if p := net.CollectParams(".*_stage1_conv0_weight").List(); len(p) != 1 || p[0].Shape()[0] != 64 {
		t.Errorf("the first bottleneck convolution: %v, want 64 output channels", p)
	}
	if got := net.Output.CollectParams(".*weight").List(); len(got) != 1 || got[0].Shape()[0] != 10 {
		t.Errorf("the output weight: %v, want 10 rows", got)
	}
}

func TestDenseNetBadArguments(t *testing.T) {
	if _, err := GetDenseNet(122); err == nil || !strings.Contains(err.Error(), "122") {
		t.Errorf("GetDenseNet(122): %v, want an error naming 122", err)
	}
	if _, err := GetModel("densenet201", Options{Classes: 10}); err != nil {
		t.Errorf("GetModel(densenet201): %v", err)
	}
	cases := []struct {
		name string
		make func()
		want string
	}{
		{"no blocks", func() { NewDenseNet(64, 32, nil) }, "0 blocks"},
		{"negative growth", func() { NewDenseNet(64, -1, []int{6}) }, "growthRate=-1"},
		{"dropout 1", func() { DenseNet121(Options{Dropout: 1}) }, "Dropout=1"},
		{"negative bn size", func() { DenseNet121(Options{BNSize: -4}) }, "BNSize=-4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(error).Error(), tc.want) {
					t.Errorf("panic %v, want one containing %q", r, tc.want)
				}
			}()
			tc.make()
		})
	}
}
