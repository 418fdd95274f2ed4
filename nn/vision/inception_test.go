package vision

import (
	"slices"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

func TestInception3(t *testing.T) {
	// The stem's five basic convolutions come first, then the first A
	// module's in the A1_ scope.
	first := []string{"conv0_weight", "batchnorm0_gamma", "batchnorm0_beta",
		"batchnorm0_running_mean", "batchnorm0_running_var", "conv1_weight"}
	// An E module has nine basic convolutions; the last is E2_'s ninth.
	last := []string{"E2_batchnorm8_gamma", "E2_batchnorm8_beta", "E2_batchnorm8_running_mean",
		"E2_batchnorm8_running_var", "dense0_weight", "dense0_bias"}
	zooCheck(t, zooCase{"inceptionv3", func() zooNet { return InceptionV3() }, 299, 0, "inception3", first})
	names, learned := zooTrace(t, InceptionV3(), 299)
	// torchvision's Inception V3, the same network, has 27,161,264
	// parameters with its auxiliary classifier, whose 3,326,696 (two
	// basic convolutions and a Dense layer) Gluon's has not.
	if want := 27161264 - 3326696; learned != want {
		t.Errorf("%d learned parameters, want %d", learned, want)
	}
	if got := strings.Join(names[len(names)-len(last):], " "); got != strings.Join(last, " ") {
		t.Errorf("last parameters %s, want %s", got, strings.Join(last, " "))
	}
	for _, want := range []string{"conv4_weight", "A1_conv0_weight", "A1_conv6_weight", "A3_batchnorm6_beta",
		"B_conv3_weight", "C1_conv9_weight", "C4_batchnorm9_gamma", "D_conv5_weight", "E1_conv8_weight"} {
		if !slices.Contains(names, want) {
			t.Errorf("no parameter %s", want)
		}
	}
	for _, absent := range []string{"conv5_weight", "A1_conv7_weight", "B_conv4_weight", "C1_conv10_weight",
		"D_conv6_weight", "E2_conv9_weight", "dense1_weight"} {
		if slices.Contains(names, absent) {
			t.Errorf("a parameter %s, which Gluon's Inception3 does not have", absent)
		}
	}
}

// TestInceptionBlocksEagerHybrid runs an A and an E module, which keep
// any image size, eagerly and hybridized.
func TestInceptionBlocksEagerHybrid(t *testing.T) {
	cases := []struct {
		name     string
		block    nn.HybridForwarder
		size     int
		channels int
	}{
		{"A", inceptionA(4, "A1_"), 5, 64 + 64 + 96 + 4},
		{"E", inceptionE("E1_"), 3, 320 + 768 + 768 + 192},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			zooEagerHybrid(t, sequential("", tc.block, nn.NewFlatten()), tc.size, tc.channels*tc.size*tc.size)
		})
	}
}

func TestInceptionModel(t *testing.T) {
	if !slices.Contains(Models(), "inceptionv3") {
		t.Errorf("Models() %v has no inceptionv3", Models())
	}
	net, err := GetModel("inceptionv3", Options{Classes: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(net.Name(), "inception3") {
		t.Errorf("GetModel(inceptionv3) is %s, want an inception3", net.Name())
	}
	if err := net.InferShape(graph.Var("data", ops.Shape{1, 3, 299, 299}, ops.Float32)); err != nil {
		t.Fatal(err)
	}
	if w := net.CollectParams(".*_dense0_weight").List(); len(w) != 1 || !slices.Equal(w[0].Shape(), ops.Shape{10, 2048}) {
		t.Errorf("the output weight: %v, want one of shape (10, 2048)", w)
	}
}
