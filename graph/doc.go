// Package graph holds hybridgo's graph mode and the MXNet file formats it
// reads and writes.
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
