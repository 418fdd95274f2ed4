// Package nn is MXNet Gluon's block API in Go: blocks, parameters and
// their initializers, layers, Summary and OptimizeFor, and export and
// import. It imports ops, eager, graph and format/mxnet (model files),
// and must not import its sub-packages or anything above it (data, viz,
// repl).
//
// What trains a block lives beside nn, as in Gluon: package nn/loss holds
// the losses (gluon.loss), nn/optim the Trainer, the optimizers and the
// learning-rate schedules (gluon.Trainer, mx.optimizer), and nn/metric
// the evaluation metrics (mx.metric). loss and optim import nn, metric
// needs only eager, and nn imports none of them.
//
// # Writing a block
//
// A block is a struct that embeds HybridBlock, holds its children and
// parameters in fields, implements HybridForward with F, and calls Bind
// once:
//
//	type Net struct {
//		nn.HybridBlock
//		Conv1, Conv2 *nn.Conv2D
//		Pool1, Pool2 *nn.MaxPool2D
//		Fc1, Fc2     *nn.Dense
//		Fc3Weight    *nn.Parameter
//	}
//
//	func NewNet() *Net {
//		n := &Net{
//			Conv1: nn.NewConv2D(6, []int{5}), Pool1: nn.NewMaxPool2D([]int{2}),
//			Conv2: nn.NewConv2D(16, []int{5}), Pool2: nn.NewMaxPool2D([]int{2}),
//			Fc1: nn.NewDense(120), Fc2: nn.NewDense(84),
//			Fc3Weight: nn.NewParameter("fc3_weight", ops.Shape{10, 0}),
//		}
//		n.Bind(n) // children and parameters are found in the fields
//		return n
//	}
//
//	func (n *Net) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
//		fmt.Println(x)
//		x = n.Pool1.Forward(F.Relu(n.Conv1.Forward(x)))
//		x = n.Pool2.Forward(F.Relu(n.Conv2.Forward(x)))
//		x = F.Reshape(x, 0, -1)
//		x = F.Relu(n.Fc1.Forward(x))
//		x = F.Relu(n.Fc2.Forward(x))
//		return F.Dot(x, nn.Param(F, n.Fc3Weight), ops.TransposeB())
//	}
//
// The same works for a struct typed into the REPL: Bind finds the
// embedded block and the fields through reflection, and the engine calls
// back into the interpreted HybridForward (types defined there have no
// name, so give one: n.Bind(n, "net")).
//
// # Layers
//
// Every layer constructor takes Gluon's required arguments, then at most
// one options value of its family, whose zero value is Gluon's defaults:
//
//	nn.NewDense(120, nn.DenseOptions{Act: "relu"})
//	nn.NewConv2D(64, []int{7}, nn.ConvOptions{Strides: []int{2}, Padding: []int{3}})
//	nn.NewMaxPool2D([]int{3}, nn.PoolOptions{Strides: []int{2}, Padding: []int{1}})
//	nn.NewDropout(0.5, nn.DropoutOptions{Axes: []int{1}})
//
// One options type serves a family in every dimension: ConvOptions for
// Conv1D, Conv2D and their transposes, PoolOptions for MaxPool1D/2D and
// AvgPool1D/2D, GlobalPoolOptions for the global pools. A size (kernel,
// pool size, strides, padding, dilation) is one value for every spatial
// dim or one value per dim. A bad argument or option, or more than one
// options value, panics with an error that names the constructor and
// the option. The kernels cover 1-D (NCW) and 2-D (NCHW) data.
//
// # Eager, then hybridized
//
//	net := NewNet()
//	net.Initialize()
//	x := eager.RandomNormal(16, 1, 28, 28)
//	net.Forward(x) // op by op: HybridForward prints an NDArray
//	net.Hybridize()
//	net.Forward(x) // traces: HybridForward prints <Symbol data 16x1x28x28 float32>
//	net.Forward(x) // runs the cached graph: HybridForward is not entered
//
// Parameters with unknown dims (0) get them from the data on the first
// forward, eagerly or while tracing (deferred initialisation).
//
// A hybridized block keeps one map of compiled graphs (graph.Executable),
// keyed by the signature of a call: the shape and dtype of each data
// input, the dtype of each parameter, and, inside Record, which of them
// need a gradient (a call on the tape leaves out the gradients nobody
// needs); and whether an op hook is registered. The key is built in a
// reused buffer, so a repeated signature costs one map lookup and no
// allocation. A new signature compiles a new graph, tracing the forward
// again only for new data shapes or dtypes (calls that differ in their
// gradients or hook share the trace). Cast, loading parameters of another
// shape or dtype, and Hybridize drop the graphs. Hybridize takes
// HybridizeOptions: StaticAlloc keeps the graph's buffers across calls;
// StaticShape keeps the graphs of one set of data shapes, and a call with
// another still runs, as in MXNet, but replaces them (it traces and plans
// again). Inside Record, a hybridized block is one node of the autograd
// tape, so Backward reaches its parameters as it does eagerly. Outside
// Record, a StaticAlloc block returns the graph's own output buffers, as
// MXNet does: a call allocates nothing, and its output is overwritten by
// the next call (Copy it to keep it). Calls of one StaticAlloc block must
// not overlap.
//
// Children and parameters are found in the struct's fields. A block that
// is not hybridized reads its fields on every call, so a child replaced by
// assigning a field is used at once. A hybridized block reads them only
// when it compiles, for a call signature it has not seen (its first call
// after Hybridize, a call with new data shapes): a call of a compiled
// graph walks no struct. After replacing a child of a hybridized block,
// call Hybridize again.
//
// # A hybridized call, from Forward to the first kernel
//
// A call of a compiled graph reaches its first kernel in six calls, none
// of them back up the layers:
//
//  1. HybridBlock.Forward (or ForwardN) takes the inputs;
//  2. HybridBlock.ForwardN runs the hooks and, the block being
//     hybridized, calls cached;
//  3. HybridBlock.cached finds the graph for the call's signature
//     (graphFor: one map lookup) and binds the data and the parameters;
//  4. graph.Executable.Call picks the call's buffers (on the tape, outside
//     it, or the static ones) and runs the program;
//  5. graph's program.run runs the steps in order, each on its planned
//     buffers;
//  6. ops.Op.Forward calls the op's kernel.
//
// On the tape, Call then records itself with eager.RecordCall; Backward
// later calls back into the same program's backward steps.
//
// Reading a tensor's values inside HybridForward works eagerly and fails
// while tracing with a *graph.HybridizationError that names the block, the
// node and the fix; op errors name the block too.
//
// # Names
//
// Blocks are named as in Gluon: the lower-cased type name and a counter
// ("net0"), children under their parent ("net0_dense0"), parameters after
// their block ("net0_dense0_weight"). CollectParams lists them, own
// parameters first, optionally filtered by a regular expression.
// SetPrefix is Gluon's prefix argument: a child named "stage1_" rather
// than by type and counter, or with an empty prefix sharing its parent's
// prefix and counters (package nn/vision builds Gluon's model zoo names
// this way: "resnetv10_stage1_conv0_weight").
//
// SaveParameters and LoadParameters use structural names instead, as
// Gluon's save_parameters does: the path of fields from the block to the
// parameter ("conv1.weight"). The children of a HybridSequential or
// Sequential are named by their index alone ("features.4.0.body.0.weight"),
// as Gluon registers them; a block of your own gets that naming for a
// slice field by tagging it `nn:"inline"` (other slice fields name their
// elements "field.0", "field.1", …).
//
// The counters of top-level names, like the stack of traces in progress,
// belong to the current eager.State: a program counts from net0 once, and
// each REPL session, having a state of its own, counts from net0 again,
// as a new process would.
//
// # Models from files
//
// Export writes a hybridized block as MXNet's export does (a symbol file
// and a params file), and ExportONNX as an ONNX model. Both come back as
// a SymbolBlock, a block made of a graph: SymbolBlockImports reads MXNet's
// files (Gluon's SymbolBlock.imports), and ImportONNX an ONNX model,
// whether written here or by torch.onnx.export:
//
//	net, err := nn.ImportONNX("resnet18.onnx")
//	net.Hybridize()
//	y := net.Forward(x) // the model's input is named as in the file
//
// A SymbolBlock is an ordinary block: its parameters (the model's
// weights, named as in the file) train, save and load like any other's.
//
// # Plain blocks
//
// A Block (rather than a HybridBlock) implements EagerForward and may run
// any Go code; Hybridize on it hybridizes its hybrid children. A
// HybridBlock may only have hybrid children.
package nn
