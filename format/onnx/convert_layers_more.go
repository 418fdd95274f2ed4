package onnx

import (
	"math"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// The converters of LRN, depth_to_space, space_to_depth, hard_sigmoid and
// log10: one ONNX node each (two for log10), the same meaning at every
// opset from DefaultOpset to MaxOpset.

func init() {
	for name, c := range map[string]converter{
		"LRN":            {"LRN (bias is knorm, size is nsize)", lrn},
		"depth_to_space": {"DepthToSpace (mode DCR)", blockMove("DepthToSpace")},
		"space_to_depth": {"SpaceToDepth", blockMove("SpaceToDepth")},
		"hard_sigmoid":   {"HardSigmoid", exportHardSigmoid},
		"log10":          {"Log, then Mul by 1/ln(10)", log10},
	} {
		converters[name] = c
	}
}

func lrn(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.LRNAttrs](n)
	if err != nil {
		return err
	}
	e.node("LRN", n.Name, in[:1], []string{out},
		attrFloat("alpha", a.Alpha), attrFloat("beta", a.Beta), attrFloat("bias", a.Knorm), attrInt("size", a.Nsize))
	return nil
}

// blockMove converts depth_to_space or space_to_depth to the ONNX op of
// the same meaning, opType.
func blockMove(opType string) func(e *exporter, n *graph.Node, in []string, out string) error {
	return func(e *exporter, n *graph.Node, in []string, out string) error {
		a, err := attrs[ops.BlockSizeAttrs](n)
		if err != nil {
			return err
		}
		at := []*Attribute{attrInt("blocksize", a.BlockSize)}
		if opType == "DepthToSpace" {
			at = append(at, &Attribute{Name: "mode", Type: AttrString, S: []byte("DCR")})
		}
		e.node(opType, n.Name, in[:1], []string{out}, at...)
		return nil
	}
}

func exportHardSigmoid(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.HardSigmoidAttrs](n)
	if err != nil {
		return err
	}
	e.node("HardSigmoid", n.Name, in[:1], []string{out}, attrFloat("alpha", a.Alpha), attrFloat("beta", a.Beta))
	return nil
}

func log10(e *exporter, n *graph.Node, in []string, out string) error {
	c, err := e.scalar(n.Name+"_inv_ln10", 1/math.Ln10, n.Inputs[0].DType())
	if err != nil {
		return err
	}
	ln := n.Name + "_ln"
	e.node("Log", ln, in[:1], []string{ln})
	e.node("Mul", n.Name, []string{ln, c}, []string{out})
	return nil
}
