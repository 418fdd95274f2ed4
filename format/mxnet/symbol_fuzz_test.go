package mxnet_test

import (
	"bytes"
	"testing"

	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/graph"
)

// FuzzDecodeSymbol feeds arbitrary bytes to DecodeSymbol: it must never
// panic, and whatever it accepts must write out with EncodeSymbol and read
// back to the same file.
func FuzzDecodeSymbol(f *testing.F) {
	for _, s := range []*graph.Symbol{mlp(), cnn(), tinyGraph()} {
		b, err := mxnet.EncodeSymbol(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	_, samples := sampleSymbols(f)
	for _, s := range samples {
		if b, err := mxnet.EncodeSymbol(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(mxnetFile))
	f.Add([]byte(`{"nodes": [{"op": "null", "name": "data", "attr": {"__shape__": "(-1, 4L)"}},
	  {"op": "split", "name": "split0", "param": {"num_outputs": "2", "axis": "1"}, "inputs": [[0, 0]]},
	  {"op": "Concat", "name": "cat0", "attrs": {"num_args": "2", "dim": "0"}, "inputs": [[1, 0], [1, 1]]}],
	 "heads": [[2, 0], [1, 1]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := mxnet.DecodeSymbol(data)
		if err != nil {
			return
		}
		first, err := mxnet.EncodeSymbol(s)
		if err != nil {
			t.Fatalf("accepted file does not write: %v", err)
		}
		back, err := mxnet.DecodeSymbol(first)
		if err != nil {
			t.Fatalf("written file does not read: %v\n%s", err, first)
		}
		second, err := mxnet.EncodeSymbol(back)
		if err != nil {
			t.Fatalf("reloaded file does not write: %v", err)
		}
		if !bytes.Equal(first, second) {
			t.Fatalf("not stable:\n%s\nthen:\n%s", first, second)
		}
	})
}
