package onnx_test

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/onnx"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// sample is a model using every field the encoder writes.
func sample() *onnx.Model {
	return &onnx.Model{
		IRVersion: onnx.IRVersion, ProducerName: "p", ProducerVersion: "1", Domain: "d", ModelVersion: 3, DocString: "doc",
		OpsetImports: []onnx.OpsetID{{Version: 13}, {Domain: "ai.onnx.ml", Version: 2}},
		Graph: &onnx.Graph{
			Name:      "g",
			DocString: "graph doc",
			Nodes: []*onnx.Node{{
				Name: "n", OpType: "Conv", Domain: "", DocString: "node doc",
				Inputs: []string{"x", "w", ""}, Outputs: []string{"y"},
				Attributes: []*onnx.Attribute{
					{Name: "f", Type: onnx.AttrFloat, F: 0.5},
					{Name: "i", Type: onnx.AttrInt, I: -7},
					{Name: "s", Type: onnx.AttrString, S: []byte("abc")},
					{Name: "t", Type: onnx.AttrTensor, T: &onnx.Tensor{Dims: []int64{2}, DataType: onnx.TypeInt64, Int64Data: []int64{1, -1}}},
					{Name: "fs", Type: onnx.AttrFloats, Floats: []float32{1, -2.5}},
					{Name: "is", Type: onnx.AttrInts, Ints: []int64{0, 1 << 40, -3}},
					{Name: "ss", Type: onnx.AttrStrings, Strings: [][]byte{[]byte("a"), []byte("bc")}},
				},
			}},
			Initializers: []*onnx.Tensor{
				{Name: "w", Dims: []int64{1, 2}, DataType: onnx.TypeFloat, RawData: []byte{0, 0, 128, 63, 0, 0, 0, 64}},
				{Name: "f", Dims: []int64{2}, DataType: onnx.TypeFloat, FloatData: []float32{1, 2}},
				{Name: "d", Dims: []int64{1}, DataType: onnx.TypeDouble, DoubleData: []float64{3.25}},
				{Name: "i", Dims: []int64{2}, DataType: onnx.TypeInt32, Int32Data: []int32{-1, 5}},
				{Name: "scalar", DataType: onnx.TypeFloat, RawData: []byte{0, 0, 0, 0}},
			},
			Inputs:    []*onnx.ValueInfo{{Name: "x", ElemType: onnx.TypeFloat, HasShape: true, Shape: []onnx.Dim{{Param: "N"}, {Value: 3}, {}}}},
			Outputs:   []*onnx.ValueInfo{{Name: "y", ElemType: onnx.TypeFloat, DocString: "out"}},
			ValueInfo: []*onnx.ValueInfo{{Name: "s", ElemType: onnx.TypeInt64, HasShape: true}},
		},
	}
}

func TestModelRoundTrip(t *testing.T) {
	want := sample()
	b := want.Encode()
	got, err := onnx.DecodeModel(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got.Graph, want.Graph)
	}
	if !bytes.Equal(got.Encode(), b) {
		t.Error("encoding what was read gives other bytes")
	}
}

func TestDecodeSkipsUnknownFields(t *testing.T) {
	// Field 14 of ModelProto (metadata_props), a length-delimited field,
	// and field 15 as a varint, before the IR version.
	b := append([]byte{14<<3 | 2, 2, 'h', 'i', 15 << 3, 0x81, 1}, (&onnx.Model{IRVersion: 8}).Encode()...)
	m, err := onnx.DecodeModel(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.IRVersion != 8 {
		t.Errorf("IR version %d, want 8", m.IRVersion)
	}
}

func TestDecodeMalformed(t *testing.T) {
	good := sample().Encode()
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"bad tag", []byte{0}, "model: byte 0: bad field tag"},
		{"length past the end", []byte{7<<3 | 2, 100, 1, 2}, "model"},
		{"wrong wire type", []byte{7 << 3, 1}, "field 7: unexpected wire type"},
		{"bad nested node", []byte{7<<3 | 2, 3, 1<<3 | 2, 1, 0}, "node: byte 0: bad field tag"},
		{"floats not a multiple of 4", []byte{7<<3 | 2, 7, 5<<3 | 2, 5, 4<<3 | 2, 3, 1, 2, 3}, "not a multiple of 4"},
		{"truncated varint", []byte{1 << 3, 0x80}, "model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := onnx.DecodeModel(tt.b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
	// Every cut inside the graph field (a length-delimited field after
	// the model's scalar fields) leaves a length past the end.
	head := sample()
	head.Graph, head.OpsetImports = nil, nil
	start := len(head.Encode())
	withGraph := sample()
	withGraph.OpsetImports = nil
	end := len(withGraph.Encode())
	for n := start + 1; n < end; n++ {
		if _, err := onnx.DecodeModel(good[:n]); err == nil {
			t.Errorf("cut to %d bytes, inside the graph (%d to %d): no error", n, start, end)
		}
	}
}

func FuzzDecodeModel(f *testing.F) {
	f.Add(sample().Encode())
	f.Add([]byte{})
	m, err := onnx.ExportModel(models[0].sym(), nil, onnx.Options{InputShapes: map[string]ops.Shape{"data": models[0].data}})
	if err == nil {
		f.Add(m.Encode())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := onnx.DecodeModel(b)
		if err != nil {
			return
		}
		// What was read encodes, and reads back the same.
		again, err := onnx.DecodeModel(m.Encode())
		if err != nil {
			t.Fatalf("re-reading: %v", err)
		}
		if len(again.OpsetImports) != len(m.OpsetImports) || (m.Graph == nil) != (again.Graph == nil) {
			t.Fatalf("re-read model differs")
		}
		// Whatever it holds, importing it is a graph or an error.
		if im, err := onnx.Import(m); err == nil && im.Symbol == nil {
			t.Fatal("Import returned neither a graph nor an error")
		}
	})
}

func ExampleExport() {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("data", ops.Shape{0, 4}, ops.Float32)
	tr.NameNext("dense0_fwd")
	y := F.FullyConnected(x, graph.Var("dense0_weight", nil, ops.Unknown), graph.Var("dense0_bias", nil, ops.Unknown), 3)
	tr.NameNext("softmax0")
	y = F.Softmax(y)
	params := map[string]*eager.NDArray{"dense0_weight": eager.RandomNormal(3, 4), "dense0_bias": eager.Zeros(3)}
	b, err := onnx.Export(y.(*graph.Symbol), params, onnx.Options{InputShapes: map[string]ops.Shape{"data": {2, 4}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := onnx.DecodeModel(b)
	for _, n := range m.Graph.Nodes {
		fmt.Println(n.OpType, n.Inputs, "->", n.Outputs)
	}
	for _, v := range append(m.Graph.Inputs, m.Graph.Outputs...) {
		fmt.Printf("%s %+v\n", v.Name, v.Shape)
	}
	// Output:
	// Gemm [data dense0_weight dense0_bias] -> [dense0_fwd]
	// Softmax [dense0_fwd] -> [softmax0]
	// data [{Value:0 Param:N} {Value:4 Param:}]
	// softmax0 [{Value:0 Param:N} {Value:3 Param:}]
}
