package nn

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
)

// TestSetPrefixCounts checks Gluon's prefix argument: a given prefix replaces
// the type and count, and "" makes a block share its parent's prefix and
// counts (HybridSequential(prefix="")).
func TestSetPrefixCounts(t *testing.T) {
	seq := func(prefix string, layers ...HybridForwarder) *HybridSequential {
		s := NewHybridSequential(layers...)
		s.SetPrefix(prefix)
		return s
	}
	cases := []struct {
		name string
		net  func() *HybridSequential
		want []string
	}{
		{"empty prefix counts in the parent", func() *HybridSequential {
			return NewHybridSequential(NewDense(2), seq("", NewDense(2), NewDense(2)), NewDense(2))
		}, []string{"dense0", "dense1", "dense2", "dense3"}},
		{"given prefix, own counts", func() *HybridSequential {
			return NewHybridSequential(NewDense(2), seq("features_", NewDense(2)), NewDense(2))
		}, []string{"dense0", "features_dense0", "dense1"}},
		{"nested empty prefixes", func() *HybridSequential {
			return NewHybridSequential(seq("", seq("", NewDense(2)), NewDense(2)), seq("out_", seq("", NewDense(2))))
		}, []string{"dense0", "dense1", "out_dense0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			net := tc.net()
			top := net.Prefix()
			var got []string
			for _, p := range net.CollectParams("weight").List() {
				name := p.Name()[len(top):]
				got = append(got, name[:len(name)-len("_weight")])
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("names %v, want %v", got, tc.want)
			}
		})
	}
}

// TestLayerNodeNames checks the nodes the layers name as MXNet's export
// does: an activation option is an Activation child ("relu_fwd"), Flatten
// leaves its node unnamed ("flatten0_flatten0").
func TestLayerNodeNames(t *testing.T) {
	net := NewHybridSequential(
		NewConv2D(2, []int{3}, ConvOptions{Act: "relu"}), NewFlatten(),
		NewDense(3, DenseOptions{Act: "tanh"}))
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	net.Hybridize()
	net.Forward(eager.Ones(1, 1, 4, 4))
	path := filepath.Join(t.TempDir(), "net")
	if err := net.Export(path, 0); err != nil {
		t.Fatal(err)
	}
	symbol, err := os.ReadFile(path + "-symbol.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range []string{"conv0_fwd", "conv0_relu_fwd", "flatten0_flatten0", "dense0_fwd", "dense0_tanh_fwd"} {
		if name := net.Prefix() + node; !strings.Contains(string(symbol), `"`+name+`"`) {
			t.Errorf("the exported graph has no node %s", name)
		}
	}
}
