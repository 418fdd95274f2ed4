// Package graph holds hybridgo's graph mode — what Hybridize switches a
// block to — and the MXNet file formats it reads and writes.
//
// # Symbols and the tracer
//
// A Symbol is a handle on outputs of a graph. It implements ops.Tensor, so
// the F code that runs eagerly on NDArrays builds a graph when it is given
// Symbols: every registered op works in both modes by construction.
//
//	x := graph.Var("data", ops.Shape{16, 1, 28, 28}, ops.Float32)
//	w := graph.Var("conv0_weight", nil, ops.Unknown) // shape inferred below
//	y := graph.F.Convolution(x, w, nil, []int{5, 5}, 6) // nil bias: no_bias
//	fmt.Println(y)               // <Symbol convolution0 16x6x24x24 float32>
//	fmt.Println(y.(*graph.Symbol).Graph()) // one op per line, with shapes
//
// A Tracer records ops as they are applied through its F: it infers each
// output's shape and dtype from the op's rules (so shapes are printable
// while tracing, which MXNet cannot do), fills unknown dims of parameter
// variables from the data (deferred initialisation), turns NDArrays used
// inside into constants, and names nodes within block scopes
// ("net0_dense0_fwd"). Trace runs a Go function of Tensors under a new
// tracer. graph.F, for symbols built outside any trace, records through
// a tracer kept in the current eager.State, so that its names
// (relu0, relu1, …) count per program, and per REPL session. Reading a Symbol's values — Float32s, Scalar, At, and so any if
// on a tensor value — panics with a *HybridizationError that names the
// node, its op and what to write instead.
//
// Symbols list their arguments, outputs and auxiliary states, infer shapes
// and dtypes from partial information (InferShape, InferType), expose
// GetInternals and GetChildren, and evaluate on NDArrays (Eval).
//
// # Differentiation
//
// Gradients builds the gradient of a graph as another graph, applying the
// same registered gradient rules the eager tape uses, through a tracer.
//
// # Passes
//
// Each pass is a function from a graph to a new graph and a PassReport
// that says what changed: InferShapes, EliminateDeadCode,
// EliminateCommonSubexpressions, FoldConstants, FuseActivation (a
// Convolution or FullyConnected and the relu that alone reads it become
// one node, whose kernel adds the bias and applies relu to each tile of
// the product while it is in cache) and FuseElementwise (a chain of
// element-wise ops becomes one loop with no intermediate buffers).
// Optimize runs them in order. Fused nodes exist only inside the
// executor: saved graphs keep MXNet's ops. PlanMemory assigns buffers by
// liveness: values whose lives do not overlap share one, and element-wise
// ops write over their input when it dies there.
//
// # The CachedOp
//
// A CachedOp runs a graph many times. For each set of input shapes and
// dtypes it compiles a program once: concrete shapes inferred, the
// gradient graph built, the passes run over forward and backward together,
// buffers planned, every value numbered. A call on the tape whose inputs
// need no gradient for some of them (the data, as a rule) gets a program
// of its own, without the backward ops only they need. StaticAlloc keeps
// the buffers of calls outside the tape across calls; StaticShape holds
// the op to the first call's input shapes (programs that differ only in
// the gradients they leave out, or in being hooked, are still allowed).
// Call runs it as one node of the eager autograd tape (Record and Backward
// flow through it); Forward and Backward run it directly, Backward on the
// latest Forward's values. SetOpHook sees every op's output as it runs
// (programs compiled while a hook is set fuse nothing, so that every
// op's output is seen). A call that the tape does not record keeps
// nothing once its outputs are copied out, so its buffers serve the next
// such call; a call on the tape keeps its buffers until Backward releases
// it, and they then serve the next call on the tape.
//
// Memory, measured by BenchmarkLeNetTrainingStep (Forward and Backward,
// so a fresh frame per call without StaticAlloc): one forward+backward of
// the tutorial's LeNet at batch 256 allocates about 23 MB eagerly, about
// 13 MB through a cached graph (the memory plan shares buffers), and
// nothing with StaticAlloc. One forward at batch 16 outside Record (nn's
// BenchmarkLeNetPredictByMode) allocates about 740 KB eagerly, 2 KB
// hybridized and nothing with StaticAlloc.
//
// # Parameter files
//
// MXNet keeps a model's weights in an NDArray-list file, PREFIX-0001.params,
// written by HybridBlock.export, Module checkpoints, save_parameters and
// nd.save. A file is a list of arrays, each with an optional name:
// "arg:dense0_weight" and "aux:bn0_moving_mean" from export,
// "0.weight" from save_parameters, or no names at all. NamedArray is one
// entry:
//
//	list := []graph.NamedArray{
//		{Name: "arg:dense0_weight", Array: eager.Array([]float32{1, 2, 3, 4}, 2, 2)},
//		{Name: "arg:dense0_bias", Array: eager.Zeros(2)},
//	}
//	err := graph.SaveParams("model-0001.params", list)
//
//	list, err = graph.LoadParams("model-0001.params")
//	params, err := graph.ParamsMap(list) // by name; duplicate names are an error
//	w := params["arg:dense0_weight"]
//
// EncodeParams and DecodeParams do the same on bytes in memory.
//
// Writing uses the V2 array layout MXNet 1.x writes (dense, cpu(0)), so
// MXNet can load the files hybridgo saves; the same list always gives the
// same bytes. SaveParams replaces a file atomically: a failed save leaves the
// previous file as it was.
//
// Reading accepts the V0, V1, V2 and V3 array layouts, arrays saved from any
// context (they load to cpu(0)), and the dtypes with kernels: float32,
// float64, uint8, int8, int32, int64 and bool. Sparse arrays, float16 and
// other dtypes, and MXNet's "none" arrays are errors naming the array.
//
// Model files are untrusted input. The reader checks every count and length
// against the bytes that remain before allocating, caps ndim at MaxNDim, and
// rejects negative dims, overflowing sizes and trailing bytes, so a
// malformed or hostile file gives an error, never a panic or an allocation
// larger than the file. Errors are *FormatError values naming the byte
// offset, the array (index and, when known, name) and what was expected:
//
//	params: offset 52: array 0 ("arg:w"): type flag 2 (float16) has no kernels in hybridgo (…)
package graph
