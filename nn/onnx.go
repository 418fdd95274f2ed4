package nn

import (
	"fmt"

	"github.com/hybridgo/hybridgo/format/onnx"
)

// ImportONNX reads an ONNX model (a .onnx file written by
// torch.onnx.export, by ExportONNX, or by another ONNX exporter) and
// returns it as a SymbolBlock: its inputs are the model's inputs, in
// order and by name; its parameters are the model's initializers that
// ops use as weights, biases and statistics, named as in the model and
// holding its values. The block runs eagerly, hybridizes, trains (its
// parameters take gradients like any other) and exports again, to
// MXNet's files with Export and to ONNX with ExportONNX.
//
//	net, err := nn.ImportONNX("resnet18.onnx")
//	y := net.Forward(x)
//
// An op that does not convert is an error naming the node and the op
// (onnx.ImportOps lists those that do).
func ImportONNX(path string) (*SymbolBlock, error) {
	m, err := onnx.LoadModel(path)
	if err != nil {
		return nil, err
	}
	im, err := onnx.Import(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s, err := NewSymbolBlock(im.Symbol, im.Inputs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, p := range s.Params {
		a, ok := im.Params[s.varOf[p]]
		if !ok {
			return nil, fmt.Errorf("%s: parameter %q has no value in the model", path, s.varOf[p])
		}
		if err := p.SetData(a); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return s, nil
}

// ExportONNX writes the graph of the block's latest hybridized forward and
// its parameters as an ONNX model (opts as onnx.Export takes them; the
// zero value writes opset 13 with a dynamic batch), atomically. Like
// Export, it needs Hybridize and one forward first.
func (b *HybridBlock) ExportONNX(path string, opts onnx.Options) error {
	sym, params, err := b.exported()
	if err != nil {
		return fmt.Errorf("%s: export %s: %w", b.Name(), path, err)
	}
	if err := onnx.SaveModel(path, sym, params, opts); err != nil {
		return fmt.Errorf("%s: export %s: %w", b.Name(), path, err)
	}
	return nil
}
