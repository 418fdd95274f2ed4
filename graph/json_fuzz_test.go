package graph_test

import (
	"bytes"
	"testing"

	"github.com/hybridgo/hybridgo/graph"
)

// FuzzFromJSON feeds arbitrary bytes to FromJSON: it must never panic, and
// whatever it accepts must write out with ToJSON and read back to the same
// file.
func FuzzFromJSON(f *testing.F) {
	y, _ := mlp()
	for _, s := range []*graph.Symbol{y, cnn(), tinyGraph()} {
		b, err := s.ToJSON()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	_, samples := sampleSymbols(f)
	for _, s := range samples {
		if b, err := s.ToJSON(); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(mxnetFile))
	f.Add([]byte(`{"nodes": [{"op": "null", "name": "data", "attr": {"__shape__": "(-1, 4L)"}},
	  {"op": "split", "name": "split0", "param": {"num_outputs": "2", "axis": "1"}, "inputs": [[0, 0]]},
	  {"op": "Concat", "name": "cat0", "attrs": {"num_args": "2", "dim": "0"}, "inputs": [[1, 0], [1, 1]]}],
	 "heads": [[2, 0], [1, 1]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := graph.FromJSON(data)
		if err != nil {
			return
		}
		first, err := s.ToJSON()
		if err != nil {
			t.Fatalf("accepted file does not write: %v", err)
		}
		back, err := graph.FromJSON(first)
		if err != nil {
			t.Fatalf("written file does not read: %v\n%s", err, first)
		}
		second, err := back.ToJSON()
		if err != nil {
			t.Fatalf("reloaded file does not write: %v", err)
		}
		if !bytes.Equal(first, second) {
			t.Fatalf("not stable:\n%s\nthen:\n%s", first, second)
		}
	})
}
