package vision

import (
	"testing"

	"github.com/hybridgo/hybridgo/ops"
)

// TestVGG traces each VGG on a 224x224 image (running one would take
// seconds) and checks its names, its parameter count and the shape of
// the first Dense layer's weight, which shape inference through the
// features gives.
func TestVGG(t *testing.T) {
	first := []string{"conv0_weight", "conv0_bias", "conv1_weight"}
	firstBN := []string{"conv0_weight", "conv0_bias", "batchnorm0_gamma", "batchnorm0_beta",
		"batchnorm0_running_mean", "batchnorm0_running_var", "conv1_weight"}
	// The counts are those of the Gluon model zoo's table.
	cases := []zooCase{
		{"vgg11", func() zooNet { return VGG11() }, 224, 132.86, "vgg", first},
		{"vgg13", func() zooNet { return VGG13() }, 224, 133.05, "vgg", first},
		{"vgg16", func() zooNet { return VGG16() }, 224, 138.36, "vgg", first},
		{"vgg19", func() zooNet { return VGG19() }, 224, 143.67, "vgg", first},
		{"vgg11_bn", func() zooNet { return VGG11BN() }, 224, 132.87, "vgg", firstBN},
		{"vgg13_bn", func() zooNet { return VGG13BN() }, 224, 133.05, "vgg", firstBN},
		{"vgg16_bn", func() zooNet { return VGG16BN() }, 224, 138.37, "vgg", firstBN},
		{"vgg19_bn", func() zooNet { return VGG19BN() }, 224, 143.68, "vgg", firstBN},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			zooCheck(t, tc)
		})
	}
}

func TestVGGLayers(t *testing.T) {
	cases := []struct {
		layers    int
		bn        bool
		lastConv  string
		lastNorm  string
		denseFrom int
	}{
		{11, false, "conv7_weight", "", 25088},
		{16, false, "conv12_weight", "", 25088},
		{19, true, "conv15_weight", "batchnorm15_gamma", 25088},
	}
	for _, tc := range cases {
		net := NewVGG(tc.layers, tc.bn, Options{Classes: 10})
		names, _ := zooTrace(t, net, 224)
		has := map[string]bool{}
		for _, n := range names {
			has[n] = true
		}
		for _, n := range []string{tc.lastConv, tc.lastNorm, "dense0_weight", "dense1_weight", "dense2_weight"} {
			if n != "" && !has[n] {
				t.Errorf("vgg%d (batch norm %v) has no parameter %s: %v", tc.layers, tc.bn, n, names)
			}
		}
		params := net.CollectParams("dense").List()
		if got := params[0].Shape(); !got.Equal(ops.Shape{4096, tc.denseFrom}) {
			t.Errorf("vgg%d: dense0_weight is %v, want 4096x%d", tc.layers, got, tc.denseFrom)
		}
		if got := params[len(params)-2].Shape(); !got.Equal(ops.Shape{10, 4096}) {
			t.Errorf("vgg%d: the output weight is %v, want 10x4096", tc.layers, got)
		}
	}
}

func TestVGGBadDepth(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewVGG(12, false) did not panic")
		}
	}()
	NewVGG(12, false)
}
