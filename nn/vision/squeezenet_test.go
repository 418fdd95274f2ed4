package vision

import (
	"strings"
	"testing"
)

func TestSqueezeNet(t *testing.T) {
	squeezenet := func(v string) func() zooNet { return func() zooNet { return NewSqueezeNet(v) } }
	// The first Fire module's squeeze, 1x1 and 3x3 convolutions follow
	// the first convolution in one count: its Sequentials have prefix "".
	first := []string{"conv0_weight", "conv0_bias", "conv1_weight", "conv1_bias",
		"conv2_weight", "conv2_bias", "conv3_weight", "conv3_bias", "conv4_weight"}
	cases := []zooCase{
		{"squeezenet1_0", squeezenet("1.0"), 224, 1.25, "squeezenet", first},
		{"squeezenet1_1", squeezenet("1.1"), 224, 1.24, "squeezenet", first},
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
