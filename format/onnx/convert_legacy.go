package onnx

import (
	"fmt"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// The converters of the older and contrib spellings of the layers
// (BatchNorm_v1, _contrib_SyncBatchNorm, _contrib_BatchNormWithReLU,
// Convolution_v1, Pooling_v1) and of the straight-through estimators
// _contrib_round_ste and _contrib_sign_ste, whose inference is round and
// sign: each is written as the layer it is a version of.

func init() {
	for name, c := range map[string]converter{
		"BatchNorm_v1":               {"BatchNormalization (inference: the moving statistics)", batchNormV1},
		"_contrib_SyncBatchNorm":     {"BatchNormalization (inference: the moving statistics)", syncBatchNorm},
		"_contrib_BatchNormWithReLU": {"BatchNormalization and Relu", batchNormWithReLU},
		"Convolution_v1":             {"Conv", convolutionV1},
		"Pooling_v1":                 {"MaxPool, AveragePool, GlobalMaxPool or GlobalAveragePool", poolingV1},
		"_contrib_round_ste":         {"Round", simple("Round")},
		"_contrib_sign_ste":          {"Sign", simple("Sign")},
	} {
		converters[name] = c
	}
}

// as returns a copy of n that reads as the op named op with attributes a.
func as(n *graph.Node, op string, a ops.Attrs) *graph.Node {
	m := *n
	m.Op, m.Attrs = ops.MustLookup(op), a
	return &m
}

func batchNormV1(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.BatchNormV1Attrs](n)
	if err != nil {
		return err
	}
	return batchNorm(e, as(n, "BatchNorm", &ops.BatchNormAttrs{Eps: a.Eps, Momentum: a.Momentum, FixGamma: a.FixGamma,
		UseGlobalStats: a.UseGlobalStats, OutputMeanVar: a.OutputMeanVar, Axis: 1}), in, out)
}

func syncBatchNorm(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.SyncBatchNormAttrs](n)
	if err != nil {
		return err
	}
	return batchNorm(e, as(n, "BatchNorm", &ops.BatchNormAttrs{Eps: a.Eps, Momentum: a.Momentum, FixGamma: a.FixGamma,
		UseGlobalStats: a.UseGlobalStats, OutputMeanVar: a.OutputMeanVar, Axis: 1}), in, out)
}

func batchNormWithReLU(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.BatchNormAttrs](n)
	if err != nil {
		return err
	}
	bn := as(n, "BatchNorm", a)
	bn.Name = n.Name + "_bn"
	y := e.temp(n, "bn")
	if err := batchNorm(e, bn, in, y); err != nil {
		return err
	}
	e.node("Relu", n.Name, []string{y}, []string{out})
	return nil
}

func convolutionV1(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.ConvolutionV1Attrs](n)
	if err != nil {
		return err
	}
	return convolution(e, as(n, "Convolution", &ops.ConvolutionAttrs{Kernel: a.Kernel, Stride: a.Stride, Dilate: a.Dilate,
		Pad: a.Pad, NumFilter: a.NumFilter, NumGroup: a.NumGroup, NoBias: a.NoBias, Layout: "None"}), in, out)
}

func poolingV1(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.PoolingV1Attrs](n)
	if err != nil {
		return err
	}
	if a.PoolType == "avg" && a.PoolingConvention == "full" && !a.GlobalPool {
		// Windows past the border divide by the whole kernel in
		// Pooling_v1, by the part inside in AveragePool.
		return fmt.Errorf("avg pooling with pooling_convention full has no ONNX export")
	}
	return pooling(e, as(n, "Pooling", &ops.PoolingAttrs{Kernel: a.Kernel, PoolType: a.PoolType, GlobalPool: a.GlobalPool,
		PoolingConvention: a.PoolingConvention, Stride: a.Stride, Pad: a.Pad, CountIncludePad: true, Layout: "None"}), in, out)
}
