package vision

import "testing"

func TestAlexNet(t *testing.T) {
	tc := zooCase{"alexnet", func() zooNet { return NewAlexNet() }, 224, 61.10, "alexnet",
		[]string{"conv0_weight", "conv0_bias", "conv1_weight", "conv1_bias", "conv2_weight"}}
	zooCheck(t, tc)
	// Gluon names the output layer dense2: the features' Sequential has
	// the prefix "" and so counts its layers in AlexNet's scope.
	names, _ := zooTrace(t, NewAlexNet(), 224)
	if got := names[len(names)-6:]; got[0] != "dense0_weight" || got[4] != "dense2_weight" {
		t.Errorf("the last parameters are %v, want dense0 to dense2", got)
	}
	zooEagerHybrid(t, NewAlexNet(Options{Classes: 10}), 224, 10)
}
