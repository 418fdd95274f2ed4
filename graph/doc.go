// Package graph holds hybridgo's graph mode — what Hybridize switches a
// block to: the graph IR, the tracer, symbolic gradients, passes and the
// executor. It must not import nn or the file formats: format/mxnet reads
// and writes graphs as MXNet's symbol and params files.
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
// element-wise ops becomes one loop with no intermediate buffers beyond
// a block of registers: each op runs over a block of elements in turn,
// arithmetic and relu as vector loops; BatchNorm's gradient in a hybridized
// backward is such a chain). FoldBatchNorm, for graphs that run outside
// training only (PassOptions.Inference), makes a Convolution and the
// BatchNorm of its channels one node whose product's epilogue applies the
// normalisation as a scale and shift per channel, and takes the sum that
// ends a ResNet block into the same node; FuseActivation then adds the
// relu (or MobileNet's relu6) after it.
// Optimize runs them in order. Fused nodes exist only inside the
// executor: saved graphs keep MXNet's ops. PlanMemory assigns buffers by
// liveness: values whose lives do not overlap share one, and element-wise
// ops write over their input when it dies there.
//
// # Executables
//
// Compile turns a graph into an Executable for one Signature: the shapes
// and dtypes of its inputs (CallInputs names them, in order) and, for
// calls on the autograd tape, the inputs whose gradients are left out
// (SignatureOf(args, onTape) reads all three from arrays). Compiling
// infers every shape, builds the gradient graph, runs the passes over
// forward and backward together, plans the buffers and numbers every
// value; a call then runs kernel after kernel with no inference and no
// maps. An Executable never compiles again and refuses other signatures:
// the one cache of compiled graphs is the hybridized block's (package
// nn), which keys them by signature.
//
//	e, err := graph.Compile(sym, graph.SignatureOf(args, false), graph.CompileOptions{})
//	out, err := e.Call(args...)
//
// Call runs the graph in the current mode. Inside Record, when an input
// needs a gradient, the call goes on the eager tape as one node
// (eager.RecordCall): the tape keeps the call's values, runs the
// program's backward part when Backward reaches it, and releases it
// after, so that its buffers serve the next call on the tape. A call the
// tape does not record keeps nothing once its outputs are copied out, so
// its buffers serve the next such call. StaticAlloc keeps one set of
// buffers for the calls outside the tape: their outputs are then the
// executable's own, valid until the next call, and a call allocates
// nothing. The calls outside Record and outside training run a second
// program, compiled on the first such call with the Inference passes
// (BatchNorm folded into the convolutions) and no backward part; the
// calls on the tape and in training mode never run folded ops. Forward and Backward run the graph directly, without the
// tape, Backward on the latest Forward's values. SetOpHook sees every
// op's output as it runs (compile with Hooked, so that nothing is fused
// and every op's output is seen).
//
// Eval, for one-off runs of a graph on any shapes, infers shapes as it
// goes and runs each node with eager.Exec, the node runner of eager ops.
//
// Memory, measured by BenchmarkLeNetTrainingStep (Forward and Backward,
// so a fresh frame per call without StaticAlloc): one forward+backward of
// the tutorial's LeNet at batch 256 allocates about 23 MB eagerly, about
// 13 MB through an Executable (the memory plan shares buffers), and
// nothing with StaticAlloc. One forward at batch 16 outside Record (nn's
// BenchmarkLeNetPredictByMode) allocates about 740 KB eagerly, under 1 KB
// hybridized and nothing with StaticAlloc.
package graph
