package onnx_test

import (
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

func init() {
	moreOpModels = append(moreOpModels, model{"legacy_layers", func() *graph.Symbol {
		x := data(0, 3, 5, 5)
		bnIn := func(p string) []ops.Tensor {
			return []ops.Tensor{x, v(p+"_gamma", 3), v(p+"_beta", 3), v(p+"_mean", 3), v(p+"_var", 3)}
		}
		conv := F.Call("Convolution_v1", []ops.Tensor{x, v("c_weight", 4, 3, 3, 3), v("c_bias", 4)},
			attr("kernel", ops.Tuple{3, 3}), attr("num_filter", 4), attr("pad", ops.Tuple{1, 1}))[0]
		return group(
			F.Call("BatchNorm_v1", bnIn("a"), attr("fix_gamma", false))[0],
			F.Call("_contrib_SyncBatchNorm", bnIn("b"), attr("key", "b"))[0],
			F.Call("_contrib_BatchNormWithReLU", bnIn("c"), attr("fix_gamma", false))[0],
			conv,
			F.Call("Pooling_v1", []ops.Tensor{x}, attr("kernel", ops.Tuple{2, 2}), attr("stride", ops.Tuple{2, 2}))[0],
			F.Call("Pooling_v1", []ops.Tensor{x}, attr("kernel", ops.Tuple{3, 3}), attr("pad", ops.Tuple{1, 1}), attr("pool_type", "avg"))[0],
			F.Call("Pooling_v1", []ops.Tensor{x}, attr("global_pool", true), attr("pool_type", "avg"))[0],
			F.RoundSTE(F.MulScalar(x, 3)), F.SignSTE(x))
	}, ops.Shape{2, 3, 5, 5}, []int{2, 3}})
}
