package onnx

import (
	"fmt"
	"math"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// The converters of amp_cast, argmax_channel, SoftmaxActivation,
// _square_sum, _contrib_div_sqrt_dim and _linspace: a node or two each,
// the same meaning at every opset from DefaultOpset to MaxOpset.
// erfinv, gamma and gammaln have no ONNX counterpart.

func init() {
	for name, c := range map[string]converter{
		"amp_cast":              {"Cast (Identity for an input that is not floating-point)", ampCast},
		"argmax_channel":        {"ArgMax along axis 1, then Cast", argmaxChannel},
		"SoftmaxActivation":     {"Softmax along axis 1 (channel); Flatten, Softmax and Reshape (instance)", softmaxActivation},
		"_square_sum":           {"ReduceSumSquare", reduction("ReduceSumSquare")},
		"_contrib_div_sqrt_dim": {"Mul by 1/sqrt(last dim)", divSqrtDim},
		"_linspace":             {"an initializer holding the values", created},
	} {
		converters[name] = c
	}
}

func ampCast(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.AMPCastAttrs](n)
	if err != nil {
		return err
	}
	if !n.Inputs[0].DType().IsFloat() {
		e.node("Identity", n.Name, in, []string{out})
		return nil
	}
	to, err := elemType(a.DType)
	if err != nil {
		return err
	}
	e.node("Cast", n.Name, in, []string{out}, attrInt("to", int(to)))
	return nil
}

func argmaxChannel(e *exporter, n *graph.Node, in []string, out string) error {
	to, err := elemType(n.Inputs[0].DType())
	if err != nil {
		return err
	}
	idx := e.temp(n, "index")
	e.node("ArgMax", n.Name+"_index", in, []string{idx}, attrInt("axis", 1), attrInt("keepdims", 0))
	e.node("Cast", n.Name, []string{idx}, []string{out}, attrInt("to", int(to)))
	return nil
}

func softmaxActivation(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.SoftmaxActivationAttrs](n)
	if err != nil {
		return err
	}
	if a.Mode == "channel" || rank(n, 0) == 2 {
		e.node("Softmax", n.Name, in, []string{out}, attrInt("axis", 1))
		return nil
	}
	flat, soft, shape := e.temp(n, "flatten"), e.temp(n, "softmax"), e.temp(n, "shape")
	e.node("Flatten", n.Name+"_flatten", in, []string{flat}, attrInt("axis", 1))
	e.node("Softmax", n.Name+"_softmax", []string{flat}, []string{soft}, attrInt("axis", 1))
	e.node("Shape", n.Name+"_shape", in, []string{shape})
	e.node("Reshape", n.Name, []string{soft, shape}, []string{out})
	return nil
}

func divSqrtDim(e *exporter, n *graph.Node, in []string, out string) error {
	s, err := knownShape(n, 0, "_contrib_div_sqrt_dim")
	if err != nil {
		return err
	}
	if len(s) == 0 || s[len(s)-1] <= 0 {
		return fmt.Errorf("_contrib_div_sqrt_dim needs the size of the data's last axis, unknown in %v", s)
	}
	k, err := e.scalar(n.Name+"_scale", 1/math.Sqrt(float64(s[len(s)-1])), n.Inputs[0].DType())
	if err != nil {
		return err
	}
	e.node("Mul", n.Name, []string{in[0], k}, []string{out})
	return nil
}
