package ops_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/ops"
)

// TestParameterShapesAsMXNet checks, for each op with parameter inputs,
// what its shape rule infers of parameters whose shape is unknown, against
// what MXNet 1.9's FInferShape infers for the same op: the shapes a
// symbol file's variables take when it declares none.
func TestParameterShapesAsMXNet(t *testing.T) {
	tests := []struct {
		name   string
		op     string
		attrs  map[string]string
		in     []ops.Shape
		filled []ops.Shape // the inputs after inference
		out    ops.Shape   // output 0; nil: still unknown
	}{
		{"conv", "Convolution", map[string]string{"kernel": "(3,3)", "num_filter": "8"},
			[]ops.Shape{{2, 4, 9, 9}, nil, nil}, []ops.Shape{{2, 4, 9, 9}, {8, 4, 3, 3}, {8}}, ops.Shape{2, 8, 7, 7}},
		{"conv grouped", "Convolution", map[string]string{"kernel": "(3,3)", "num_filter": "8", "num_group": "2"},
			[]ops.Shape{{2, 4, 9, 9}, nil, nil}, []ops.Shape{{2, 4, 9, 9}, {8, 2, 3, 3}, {8}}, ops.Shape{2, 8, 7, 7}},
		{"conv 1-D", "Convolution", map[string]string{"kernel": "(3,)", "num_filter": "5", "no_bias": "True"},
			[]ops.Shape{{2, 4, 9}, nil}, []ops.Shape{{2, 4, 9}, {5, 4, 3}}, ops.Shape{2, 5, 7}},
		{"deconv", "Deconvolution", map[string]string{"kernel": "(3,3)", "num_filter": "8", "no_bias": "False"},
			[]ops.Shape{{2, 4, 9, 9}, nil, nil}, []ops.Shape{{2, 4, 9, 9}, {4, 8, 3, 3}, {8}}, ops.Shape{2, 8, 11, 11}},
		{"deconv grouped", "Deconvolution", map[string]string{"kernel": "(3,3)", "num_filter": "8", "num_group": "2"},
			[]ops.Shape{{2, 4, 9, 9}, nil}, []ops.Shape{{2, 4, 9, 9}, {4, 4, 3, 3}}, ops.Shape{2, 8, 11, 11}},
		{"dense flatten", "FullyConnected", map[string]string{"num_hidden": "5"},
			[]ops.Shape{{2, 3, 4}, nil, nil}, []ops.Shape{{2, 3, 4}, {5, 12}, {5}}, ops.Shape{2, 5}},
		{"dense no flatten", "FullyConnected", map[string]string{"num_hidden": "5", "flatten": "False"},
			[]ops.Shape{{2, 3, 4}, nil, nil}, []ops.Shape{{2, 3, 4}, {5, 4}, {5}}, ops.Shape{2, 3, 5}},
		{"dense bias (n, 1)", "FullyConnected", map[string]string{"num_hidden": "5"},
			[]ops.Shape{{2, 3}, nil, {5, 1}}, []ops.Shape{{2, 3}, {5, 3}, {5, 1}}, ops.Shape{2, 5}},
		{"batchnorm", "BatchNorm", nil,
			[]ops.Shape{{2, 3, 4}, nil, nil, nil, nil}, []ops.Shape{{2, 3, 4}, {3}, {3}, {3}, {3}}, ops.Shape{2, 3, 4}},
		{"batchnorm last axis", "BatchNorm", map[string]string{"axis": "-1"},
			[]ops.Shape{{2, 3, 4}, nil, nil, nil, nil}, []ops.Shape{{2, 3, 4}, {4}, {4}, {4}, {4}}, ops.Shape{2, 3, 4}},
		{"layernorm", "LayerNorm", nil,
			[]ops.Shape{{2, 3, 4}, nil, nil}, []ops.Shape{{2, 3, 4}, {4}, {4}}, ops.Shape{2, 3, 4}},
		{"layernorm axis 1", "LayerNorm", map[string]string{"axis": "1"},
			[]ops.Shape{{2, 3, 4}, nil, nil}, []ops.Shape{{2, 3, 4}, {3}, {3}}, ops.Shape{2, 3, 4}},
		{"embedding", "Embedding", map[string]string{"input_dim": "10", "output_dim": "6"},
			[]ops.Shape{{2, 3}, nil}, []ops.Shape{{2, 3}, {10, 6}}, ops.Shape{2, 3, 6}},
		{"embedding, data unknown", "Embedding", map[string]string{"input_dim": "10", "output_dim": "6"},
			[]ops.Shape{nil, nil}, []ops.Shape{nil, {10, 6}}, nil},
		{"prelu", "LeakyReLU", map[string]string{"act_type": "prelu"},
			[]ops.Shape{{2, 3, 4, 4}, nil}, []ops.Shape{{2, 3, 4, 4}, {3}}, ops.Shape{2, 3, 4, 4}},
		{"prelu 2-D", "LeakyReLU", map[string]string{"act_type": "prelu"},
			[]ops.Shape{{2, 7}, nil}, []ops.Shape{{2, 7}, {7}}, ops.Shape{2, 7}},
		// While the data's shape is unknown, so is gamma's: it is not (1,).
		{"prelu, data unknown", "LeakyReLU", map[string]string{"act_type": "prelu"},
			[]ops.Shape{nil, nil}, []ops.Shape{nil, nil}, nil},
		{"prelu, data unknown, gamma given", "LeakyReLU", map[string]string{"act_type": "prelu"},
			[]ops.Shape{nil, {256}}, []ops.Shape{nil, {256}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := ops.MustLookup(tt.op)
			out, filled, err := op.InferShape(parse(t, op, tt.attrs), tt.in)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range tt.filled {
				if (want == nil) != (filled[i] == nil) || !filled[i].Equal(want) {
					t.Errorf("input %d inferred as %v, want %v", i, filled[i], want)
				}
			}
			if (tt.out == nil) != (out[0] == nil) || !out[0].Equal(tt.out) {
				t.Errorf("output %v, want %v", out[0], tt.out)
			}
		})
	}
}
