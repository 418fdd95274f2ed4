// Package mxnet reads and writes MXNet 1.x's two model files: the symbol
// file, which holds a graph, and the params file, which holds the arrays
// of its parameters. It owns these formats and nothing else: it builds
// graph values from files and files from graph values, and must not
// import nn, or anything above graph and eager, so that nn and the
// command-line tools can use it. Other formats (ONNX) sit beside it, under
// format/.
//
// # Checkpoints
//
// MXNet's export and save_checkpoint write a model as two files,
// PREFIX-symbol.json and PREFIX-0001.params (the number is an epoch).
// SaveCheckpoint and LoadCheckpoint write and read the pair:
//
//	err := mxnet.SaveCheckpoint("model", 1, sym, params) // params by variable name
//	sym, params, err := mxnet.LoadCheckpoint("model", 1)
//
// The parameters go into the params file as "arg:NAME" (arguments, which
// an optimizer updates) and "aux:NAME" (auxiliary states, such as
// BatchNorm's running mean, which the forward pass updates); the prefixes
// are removed on loading. Whether a variable is an argument or an
// auxiliary state follows from the op that reads it. SymbolFile and
// ParamsFile name the two files of a prefix.
//
// # Symbol files
//
// A symbol file is JSON: a list of nodes in topological order, each an op
// or a variable ("op": "null"), with its attributes as strings and its
// inputs as [node, output, version]; then the graph's outputs ("heads")
// and the version of MXNet that wrote it:
//
//	{"nodes": [{"op": "null", "name": "data", "inputs": []}, …],
//	 "arg_nodes": [0, 1, 2],
//	 "node_row_ptr": [0, 1, 2, 3, 4],
//	 "heads": [[3, 0, 0]],
//	 "attrs": {"mxnet_version": ["int", 10901]}}
//
// EncodeSymbol and DecodeSymbol turn a *graph.Symbol into these bytes and
// back; SaveSymbol and LoadSymbol do the same with a file. A variable's
// shape and dtype travel as its "__shape__" and "__dtype__" attributes,
// and its other attributes, and any attribute an op does not know, are
// kept and written back. Op attributes are (de)serialised by the op's
// own rules in ops. Reading accepts the older layouts too (2-element
// inputs; "attr" and "param" for "attrs"), and infers the shapes and
// dtypes the variables' annotations allow. A model's parameters say more
// than its symbol file: DecodeSymbolWithParams and LoadSymbolWithParams
// take the params file's shapes and dtypes for the variables first, so
// that they win over what the ops' rules would infer (a shape declared
// in "__shape__" still wins over both), as MXNet's SymbolBlock.imports
// and load_checkpoint read them (LoadCheckpoint here).
//
// # Params files
//
// A params file is MXNet's NDArray list, written by export, Module
// checkpoints, save_parameters and nd.save: a header, the arrays (each
// with its shape, context, type flag and raw little-endian data) and
// optionally a name for each. NamedArray is one entry:
//
//	list := []mxnet.NamedArray{
//		{Name: "arg:dense0_weight", Array: eager.Array([]float32{1, 2, 3, 4}, 2, 2)},
//		{Name: "arg:dense0_bias", Array: eager.Zeros(2)},
//	}
//	err := mxnet.SaveParams("model-0001.params", list)
//
//	list, err = mxnet.LoadParams("model-0001.params")
//	params, err := mxnet.ParamsMap(list) // by name; duplicate names are an error
//	w := params["arg:dense0_weight"]
//
// EncodeParams and DecodeParams do the same on bytes in memory. Names are
// "arg:"/"aux:" ones from export, structural ones ("0.weight") from
// save_parameters, or absent.
//
// Writing uses the V2 array layout MXNet 1.x writes (dense, cpu(0)), so
// MXNet can load the files hybridgo saves; the same list always gives the
// same bytes. Reading accepts the V0, V1, V2 and V3 array layouts, arrays
// saved from any context (they load to cpu(0)), and the dtypes with
// kernels: float32, float64, uint8, int8, int32, int64 and bool. Sparse
// arrays, float16 and other dtypes, and MXNet's "none" arrays are errors
// naming the array.
//
// # Untrusted input
//
// Model files are untrusted input, and a malformed or hostile file gives
// an error, never a panic or an allocation out of proportion to the file.
// The params reader checks every count and length against the bytes that
// remain before allocating, caps ndim at MaxNDim, and rejects negative
// dims, overflowing sizes and trailing bytes; its errors are *FormatError
// values naming the byte offset, the array (index and, when known, name)
// and what was expected:
//
//	params: offset 52: array 0 ("arg:w"): type flag 2 (float16) has no kernels in hybridgo (…)
//
// The symbol reader checks every input against the nodes before it, and
// bounds the outputs an attribute may ask for and the dims inference may
// produce by the size of the file; its errors name the node. Loading reads
// no more than the size a file had when it was opened.
//
// Every Save function writes its file atomically (a temporary file in the
// same directory, synced, then renamed over the old one): a failed save
// leaves the previous file as it was.
package mxnet
