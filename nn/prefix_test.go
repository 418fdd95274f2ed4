package nn

import (
	"reflect"
	"testing"
)

// TestSetPrefix checks Gluon's prefix argument: a given prefix replaces
// the type and count, and "" makes a block share its parent's prefix and
// counts (HybridSequential(prefix="")).
func TestSetPrefix(t *testing.T) {
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
