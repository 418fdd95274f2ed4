package vision

import (
	"cmp"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/format/mxnet"
)

func TestSqueezeNet(t *testing.T) {
	// The first Fire module's squeeze, 1x1 and 3x3 convolutions follow
	// the first convolution in one count: its Sequentials have prefix "".
	first := []string{"conv0_weight", "conv0_bias", "conv1_weight", "conv1_bias",
		"conv2_weight", "conv2_bias", "conv3_weight", "conv3_bias", "conv4_weight"}
	cases := []zooCase{
		{"squeezenet1_0", func() zooNet { return SqueezeNet1_0() }, 224, 1.25, "squeezenet", first},
		{"squeezenet1_1", func() zooNet { return SqueezeNet1_1() }, 224, 1.24, "squeezenet", first},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			zooCheck(t, tc)
			names, _ := zooTrace(t, tc.net(), 224)
			if last := strings.Join(names[len(names)-2:], " "); last != "conv25_weight conv25_bias" {
				t.Errorf("the output convolution's parameters are %s, want conv25_weight conv25_bias", last)
			}
			zooEagerHybrid(t, tc.net(), tc.size, 1000)
		})
	}
}

func TestSqueezeNetBadVersion(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(error).Error(), `"1.2"`) {
			t.Errorf("panic %v, want one naming version \"1.2\"", r)
		}
	}()
	NewSqueezeNet("1.2")
}

// TestStructuralNames checks the names SaveParameters writes, and
// LoadParameters reads, against those of Gluon's save_parameters: a
// Sequential's children are named by their index.
func TestStructuralNames(t *testing.T) {
	cases := []struct {
		name string
		net  zooNet
		size int // the input side, 224 if 0
		want []string
	}{
		{"mobilenet_v2_0_25", MobileNetV2_0_25(Options{Classes: 10}), 0,
			[]string{"features.0.weight", "features.1.gamma", "features.3.out.0.weight", "features.3.out.7.running_var", "output.0.weight"}},
		{"mobilenet0_25", MobileNet0_25(Options{Classes: 10}), 0,
			[]string{"features.0.weight", "features.3.weight", "output.weight"}},
		{"squeezenet1_1", SqueezeNet1_1(Options{Classes: 10}), 0,
			[]string{"features.0.weight", "features.3.0.0.weight", "features.3.1.0.0.weight", "features.3.1.1.0.bias", "output.0.weight"}},
		{"densenet121", DenseNet121(Options{Classes: 10}), 0,
			[]string{"features.0.weight", "features.1.gamma", "features.4.0.1.0.gamma", "features.4.0.1.2.weight", "features.4.5.1.5.weight",
				"features.5.0.running_mean", "features.5.2.weight", "features.10.15.1.3.beta", "features.11.running_var", "output.weight"}},
		{"mobilenetv3_large", MobileNetV3Large(Options{Classes: 10}), 0,
			[]string{"features.0.weight", "features.1.gamma", "features.3.conv1.conv.weight", "features.3.conv2.bn.running_var",
				"features.4.expand.conv.weight", "features.6.se.conv1.weight", "features.6.se.conv2.bias", "features.18.weight", "features.19.gamma", "features.22.weight", "output.0.bias"}},
		{"inceptionv3", InceptionV3(Options{Classes: 10}), 299,
			[]string{"features.0.0.weight", "features.0.1.running_var", "features.7.0.0.0.weight", "features.7.3.1.1.gamma",
				"features.10.1.2.0.weight", "features.16.1.1.0.0.0.weight", "features.17.2.1.1.0.1.beta", "output.weight"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			zooTrace(t, tc.net, cmp.Or(tc.size, 224))
			if err := tc.net.Initialize(); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), tc.name+".params")
			if err := tc.net.SaveParameters(file); err != nil {
				t.Fatal(err)
			}
			list, err := mxnet.LoadParams(file)
			if err != nil {
				t.Fatal(err)
			}
			have := map[string]bool{}
			for _, a := range list {
				have[a.Name] = true
			}
			for _, w := range tc.want {
				if !have[w] {
					t.Errorf("the file has no %s", w)
				}
			}
		})
	}
}
