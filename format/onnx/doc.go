// Package onnx writes hybridgo graphs as ONNX models, and turns ONNX
// models (its own, PyTorch's, other exporters') back into graphs. It owns
// the ONNX wire format and the mappings between MXNet's ops and ONNX's,
// both ways; like format/mxnet beside it, it builds files from graph
// values and graphs from files, and must not import nn or anything above
// graph and eager. (nn.ImportONNX makes an imported graph a block.)
//
// # Export
//
// Export turns a graph and its parameter values into the bytes of a
// .onnx file; SaveModel writes them to a file atomically:
//
//	sym, params, err := mxnet.LoadCheckpoint("model", 0)
//	err = onnx.SaveModel("model.onnx", sym, params, onnx.Options{
//		InputShapes: map[string]ops.Shape{"data": {1, 1, 28, 28}},
//	})
//
// (`hybridgo convert model-symbol.json model-0000.params -o model.onnx`
// does the same from the command line.) The model uses opset 13 unless
// Options.Opset asks for a later one (up to MaxOpset). Parameters, and
// constants captured while tracing, become initializers; every other
// variable is an input, whose shape comes from the graph or from
// Options.InputShapes. The first dim of the inputs and of the outputs
// that share it is the symbolic BatchDim "N", so the model runs at any
// batch size; Options.StaticBatch writes the traced number instead. (A
// Reshape that spells the batch out, Reshape(x, 16, -1) rather than
// Reshape(x, 0, -1), still fixes it, in ONNX as in MXNet.)
// Values keep hybridgo's names: the input "data", the initializer
// "conv0_weight", the output of node "dense2_fwd" is "dense2_fwd".
//
// # The op mapping
//
// Supported lists the MXNet ops Export converts, and Mapping says what
// each becomes (`hybridgo ops NAME` prints it as "ONNX: …"). The main
// ones:
//
//	FullyConnected  Gemm(x, W, b, transB=1); Flatten first on >2-D data;
//	                flatten=False: Transpose(W), MatMul, Add
//	Convolution     Conv: kernel_shape, strides, pads (MXNet's pad on
//	                both sides), dilations, group
//	Pooling         MaxPool / AveragePool (pooling_convention=full is
//	                ceil_mode=1; count_include_pad), GlobalMaxPool /
//	                GlobalAveragePool for global_pool
//	BatchNorm       BatchNormalization with the moving mean and variance
//	                (inference); fix_gamma writes a gamma of ones
//	Activation      Relu, Sigmoid, Tanh, Softplus (softrelu), Softsign
//	LeakyReLU       LeakyRelu, Elu, Selu, PRelu (gamma reshaped to (C, 1, 1))
//	Reshape         Reshape with a constant shape: 0 copies a dim and -1
//	                infers one, as in MXNet
//	dot             Gemm for matrices (transpose_a, transpose_b); MatMul
//	                for N-D by 2-D
//	_plus_scalar …  Add, Sub, Mul, Div, Pow, Max, Min with a scalar constant
//	Dropout         Identity: an exported model is for inference
//
// and Flatten, softmax, log_softmax (axis, temperature), Concat, clip,
// transpose, add_n, the element-wise and broadcast_ arithmetic and the
// common unary functions, one to one. The indexing, shape, reduction
// and sequence-model ops:
//
//	SoftmaxOutput   Softmax (inference): axis 1 with multi_output, the
//	                last with preserve_shape, else over the dims after
//	                the first (Flatten, Softmax, Reshape); the label, read
//	                only in training, is no input of the model
//	Embedding, take Clip (MXNet clips the indices), Cast to int64, Gather
//	slice …         Slice with constant starts, ends, axes and steps (an
//	                open end is the largest int64); slice_axis the same
//	sum, mean …     ReduceSum (axes as an input), ReduceMean, ReduceMax,
//	                ReduceMin, ReduceProd (axes as an attribute, as up to
//	                opset 17); exclude is resolved against the traced
//	                rank; a reduction to a scalar is reshaped to MXNet's (1,)
//	Deconvolution   ConvTranspose: adj is output_padding; target_shape
//	                becomes the pad and adj MXNet computes from it
//	LayerNorm       ReduceMean, Sub, Mul, ReduceMean, Add, Sqrt, Div,
//	                Mul, Add: its arithmetic, which every opset from 13
//	                has (LayerNormalization is opset 17's)
//	batch_dot       MatMul, with Transpose(perm 0, 2, 1) for transpose_a/b
//	argmax, argmin  ArgMax / ArgMin (first index on ties), cast to the
//	                data's dtype as MXNet returns it
//	SliceChannel    Split into equal parts; Squeeze with squeeze_axis
//	where           Cast to bool, Where; a 1-D condition picks rows
//	tile            Tile, reps and dims padded with leading 1s as in MXNet
//	repeat          Unsqueeze, Tile, Reshape: the copies of each element
//	                on a new axis, merged with the repeated one
//
// and Cast, expand_dims (Unsqueeze), squeeze (Squeeze: without axes,
// the dims of size 1 in the traced shape), square (Mul), rsqrt (Sqrt,
// Reciprocal), stack (Unsqueeze, Concat), broadcast_to (Expand). The
// ops that create an array from their attributes alone (_zeros, _ones,
// _full, _arange, _eye, _linspace) are written as initializers holding
// their values.
// More everyday ops:
//
//	SwapAxis        Transpose
//	Pad             Pad (constant with constant_value, edge, reflect)
//	topk            TopK, its indices cast to dtype (ret_typ value,
//	                indices, both; mask has no export)
//	sort, argsort   TopK over the whole axis (argsort's indices cast)
//	_split_v2       Split at the parts' sizes; Squeeze with squeeze_axis
//	gather_nd       Transpose and Cast of the indices (ONNX holds each
//	                coordinate tuple on the last axis), GatherND
//	scatter_nd      ScatterND into an initializer of zeros, the indices
//	                as gather_nd's
//	InstanceNorm    InstanceNormalization
//	GroupNorm       Reshape to (N, groups, -1), InstanceNormalization with
//	                the per-group gamma and beta, Reshape back
//	L2Normalization ReduceSumSquare, Add (eps), Sqrt, Div
//	SequenceReverse ReverseSequence with the lengths (cast to int64);
//	                Slice with step -1 without them
//	UpSampling      Resize (nearest, asymmetric, floor) by the scale;
//	                ConvTranspose by the weight (bilinear)
//	_contrib_BilinearResize2D
//	                Resize (linear; align_corners, else
//	                pytorch_half_pixel) to the batch and channels read
//	                from the data and the output's height and width
//	amp_cast        Cast (Identity for an input that is not a float)
//	argmax_channel  ArgMax along axis 1, cast to the data's dtype
//	SoftmaxActivation
//	                Softmax along axis 1 (channel); Flatten, Softmax,
//	                Reshape (instance)
//	_square_sum     ReduceSumSquare
//	_contrib_div_sqrt_dim
//	                Mul by 1/sqrt(the last dim)
//
// The older and contrib spellings of the layers are written as the layers
// they are versions of: BatchNorm_v1 and _contrib_SyncBatchNorm as
// BatchNormalization, _contrib_BatchNormWithReLU as BatchNormalization and
// Relu, Convolution_v1 as Conv, Pooling_v1 as MaxPool or AveragePool (avg
// with pooling_convention full, which divides by the whole kernel, has no
// export); the straight-through _contrib_round_ste and _contrib_sign_ste
// as Round and Sign.
//
// Import reads most of them back (not ReduceSumSquare and
// ReverseSequence): InstanceNormalization (InstanceNorm), GatherND
// (gather_nd), ScatterND into zeros (scatter_nd), TopK (topk), Pad, and
// Resize of 4-D data (UpSampling for nearest by an integer scale,
// _contrib_BilinearResize2D for linear).
//
// Inputs that no ONNX node reads are left out of the model, so that a
// runtime does not ask for them.
//
// # Limits
//
// An op with no mapping is an error naming the op and the node, and so
// are attribute values ONNX cannot express: Reshape's codes -2, -3 and
// -4, reverse=True, pool_type sum and lp, the same pooling convention,
// BatchNorm on an axis other than 1, channels-last layouts, Dropout with
// mode=always, gelu (opset 20) and mish, take's modes raise and wrap,
// and LayerNorm's output_mean_var. The graph is exported as
// traced: the fused nodes of graph.Optimize exist only inside compiled
// executables, and a fused layer-and-relu node that reaches Export is
// written unfused. Of the multi-output ops only SliceChannel, _split_v2
// and topk (ret_typ both) write every output; of the others, such as BatchNorm and Dropout, only the
// first is written, and a graph that uses another is an error.
//
// # Import
//
// Import converts a decoded model (opsets 11 to MaxImportOpset) into a
// graph of the registry's ops, the names of its data inputs, and the
// values of its parameters:
//
//	m, err := onnx.LoadModel("resnet18.onnx") // torch.onnx.export wrote it
//	im, err := onnx.Import(m)
//	// im.Symbol: Convolution, BatchNorm, Activation, Pooling, …
//	// im.Inputs: ["input"]; im.Params: "fc.weight", "onnx::Conv_193", …
//
// nn.ImportONNX wraps this in a SymbolBlock that runs, hybridizes,
// trains and exports; `hybridgo convert model.onnx` writes MXNet's two
// files from it. ImportOps lists the ONNX ops that convert and
// ImportMapping says what each becomes (`hybridgo ops -onnx` prints the
// table): Conv and ConvTranspose, Gemm and MatMul (FullyConnected when
// the weight is an initializer), BatchNormalization, the pooling ops,
// the activations (HardSigmoid and HardSwish as the scalar ops and clip
// they are), Reshape, Flatten, Transpose, Concat, Slice, the reductions,
// Softmax, Dropout, Gather (Embedding for a table), Split, Tile, Expand,
// Where, ArgMax, the element-wise arithmetic (scalar ops for a constant
// operand) and the unary functions: every op Export writes among them, so
// that what Export writes, Import reads back.
//
// Initializers that ops take as weights, biases or statistics become
// parameters named as in the model; a constant that an op takes as an
// attribute (Reshape's shape, Clip's bounds, Slice's starts) is folded
// into the op. PyTorch stores equal initializers once and hands them on
// through Identity nodes: each use becomes a parameter of its own, as the
// model had before export. The data inputs keep their names, and their
// symbolic dims (a dynamic batch) stay unknown until the graph runs.
//
// Shape computations are worked out at import. PyTorch exports
// x.view(x.size(0), -1) as Shape, Gather, Unsqueeze and Concat feeding a
// Reshape; Import follows the dims through those ops, and the graph is
// built twice with the inputs' symbolic dims at two sizes, so that it
// knows which dims depend on them: such a dim becomes Reshape's code 0
// (copy this dim) when it is the same dim of the reshaped tensor, and is
// an error otherwise. The limits: a Conv's or pool's pads that differ
// at the start and end of a dim (MXNet's pad is symmetric), auto_pad
// SAME_*, a Pad of zeros feeding a MaxPool (which cannot take its padding
// over), a Pad with an axes input or negative pads, MaxPool's indices
// output, training-mode BatchNormalization,
// and ops of other domains are errors that name the node, its op and
// what is wrong; so is any op not in ImportOps.
//
// # The wire format
//
// Model, Graph, Node, Attribute, Tensor and ValueInfo are ONNX's
// ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto and
// ValueInfoProto (with TypeProto and TensorShapeProto folded into
// ValueInfo's ElemType and Shape), as plain structs. Encode writes them
// with the field numbers of onnx.proto; tensors are written with their
// values in raw_data, little-endian. DecodeModel and LoadModel read the
// same subset back and skip every other field. A model file is
// untrusted input: the reader checks each length against the bytes that
// remain, and a malformed file (a bad tag, a length past the end, a field
// of the wrong wire type) is an error naming the message, never a panic;
// what it allocates is bounded by the size of the file.
//
// # Checking against ONNX Runtime
//
// The tests run the exported models with ONNX Runtime (npm's
// onnxruntime-node, installed with `npm install --ignore-scripts` into the
// user's cache directory, under hybridgo/onnxruntime, on first use) through
// testdata/run.js, and compare its outputs with hybridgo's at two batch
// sizes. Without node and npm, and under -short, those tests are skipped.
//
// The networks of the model zoo (package nn/vision) are checked the way
// a user converts one: initialised with a fixed seed, run hybridized,
// written with Export, read back with format/mxnet's LoadCheckpoint and
// converted with SaveModel, as `hybridgo convert` does. Every network
// of the zoo is checked, each at its smallest input: 32x32 for ResNet
// (resnet18_v1 and resnet50_v2 with the thumbnail stem), VGG and the
// MobileNets, 64x64 for AlexNet, 224x224 for SqueezeNet and DenseNet,
// 299x299 for Inception v3. Under the race detector, which slows the
// forward passes and the writing of the parameters ten to twenty times,
// six run: ResNet's two with the thumbnail stem, squeezenet1.1 and the
// smallest of each MobileNet; the others run without it, in `make zoo`.
package onnx
