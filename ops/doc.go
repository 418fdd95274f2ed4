// Package ops is hybridgo's operator registry: the one place where every
// operator is defined, and the op namespace F through which every op is
// called.
//
// # One definition per op
//
// An op is registered once, with Register and a Def that holds all there is
// to know about it:
//
//   - its MXNet name (the "op" of a node in a symbol JSON file) and aliases;
//   - a typed attribute struct whose field tags give MXNet's attribute names
//     and defaults, so attributes parse from and print to MXNet's string
//     form ("(5, 5)", "True", "relu") without per-op code;
//   - a shape rule, which works on partly known shapes (0 = unknown dim) and
//     may fill unknown dims of parameter inputs from the data's shape: that is
//     how a layer's weight shape is inferred on its first forward;
//   - a dtype rule;
//   - a CPU kernel on Values (flat Go slices, computed by package accel);
//   - a gradient rule written with F, the same op namespace users write
//     forwards with. The rule therefore runs eagerly on NDArrays, can be
//     traced into a graph, and can itself be differentiated (second
//     derivatives come free);
//   - samples: representative attributes and shapes that the tests walk, so
//     adding an op with samples is enough to have its shapes, dtypes and
//     gradient checked.
//
// `hybridgo ops` prints the registry; it is the reference for names,
// inputs and attribute defaults.
//
// Each op also names its kind (Def.Kind, one of Kinds: "conv", "dense",
// "pool", "norm", "activation", "softmax", "loss", "elementwise",
// "reduce", "shape", "fused", "other"); graph drawings colour it by that,
// and no other package keeps a table of ops.
//
// # Where an op lives
//
// An op family has one file, named for it (conv.go, pool.go, concat.go,
// slice.go, activation.go, …), and a reader looking for an op finds all
// of it there, in this order: the attribute struct(s) with their methods,
// the var holding each *Op, one short init that registers the family,
// the helpers of its shape and gradient rules, and its F methods last.
//
// To add an op, put into its family's file (or a new one):
//
//  1. the attribute struct (or use NoAttrs), with attr, default, enum and
//     doc tags;
//  2. a Register call in the family's init with the whole Def: Name,
//     Kind, Doc, Inputs, Shape, DType when the default rule does not fit,
//     Kernel, Grad (or NoGrad) and Samples;
//  3. the F method that calls it, documented as the user sees it.
//
// The registry tests then check its shapes, dtypes, kernel and numeric
// gradient from the samples, eagerly and traced. A family of similar ops
// is a table: unaryMath (unary.go), binaryMath (arith.go) and scalarMath
// (scalar.go) entries each hold one op's whole definition. An op defined
// once serves every name MXNet gives it: Aliases for plain second names
// (flatten, fix), and Activation applies the unary activation ops relu,
// sigmoid, tanh and softsign by act_type, sharing their kernels,
// gradients and docs.
//
// Compute loops are not op definitions. Loops on flat slices that know
// nothing of ops belong in package accel; loops that need this package's
// types sit in a file of their own beside the family
// (conv_loops.go, norm_loops.go, reduce_loops.go), and the loops many
// kernels share (element-wise maps, broadcasting, moving elements by
// index) are in kernels.go and fastpath.go. The window shared by
// Convolution, Deconvolution and Pooling is in window.go. Ops whose
// output element i is one element of their data, or a fill value
// (SwapAxis, Pad, the Sequence ops, gather_nd, sort, …), are each a
// gatherDef (gather_map.go): a shape rule and an index map, from which
// the kernel and the gradient op _backward_NAME follow.
//
// # What this package owns and must not import
//
// ops owns the registry, the attribute (de)serialisation, shape and dtype
// inference, the CPU kernels (calling accel for the arithmetic) and the
// gradient rules, and the Tensor interface and F. It imports the standard
// library and accel only, never eager, graph, nn or anything above them
// (they implement Interpreter and Tensor for it).
//
// # User-defined ops
//
// Register is generic, which an interpreter such as the REPL's cannot
// call, and its attribute structs are compiled types. RegisterCustom is
// the same registration for code outside this package, compiled or
// interpreted: a CustomDef declares the attributes as a list of AttrInfo
// (name, type, default) and gives the shape rule, the optional dtype
// rule, the kernel and the gradient rule as plain functions, which read
// the attributes by name through CustomAttrs (a.Float("beta")):
//
//	ops.RegisterCustom(ops.CustomDef{
//		Name:   "swish",
//		Attrs:  []ops.AttrInfo{{Name: "beta", Type: "float", Default: "1"}},
//		Shape:  func(a ops.CustomAttrs, in []ops.Shape) ([]ops.Shape, error) { return []ops.Shape{in[0]}, nil },
//		Kernel: swishKernel, // fills out[0] from in[0]
//		Grad:   swishGrad,   // written with F, like every gradient rule
//	})
//	y := F.Call("swish", []ops.Tensor{x}, ops.Attr{"beta", 2})[0]
//
// The op then runs eagerly, is traced into graphs, differentiates through
// its rule, and is exported. Symbol files write it as MXNet writes a
// Python custom op, "op": "Custom" with op_type "swish" among the
// attributes, so MXNet loads the file where a custom op of that name is
// registered in Python; reading such a file here needs the op registered
// with RegisterCustom first. Registering a custom op's name again replaces
// it; built-in names are refused.
//
// # F and interpreters
//
// F is the op namespace handed to a HybridForward: F.Relu(x), F.Add(a, b),
// F.Dot(x, w, ops.TransposeB()), F.Sum(x, ops.Axis(1)). Every method ends in
// one call, Interpreter.Apply, and the interpreter gives the op its meaning:
// package eager's interpreter runs the kernel at once on NDArrays; a tracing
// interpreter records a graph node and returns a Symbol. Code written
// against F therefore runs in both modes unchanged.
//
// Attributes are given by name with Attr (ops.Attr{"axis", 1}) or with the
// helpers Axis, Keepdims, TransposeA, TransposeB and WithDType. Misspelled
// names and malformed values fail at once with an *Error that lists the
// attributes the op takes.
//
// # Tensor
//
// Tensor is the interface of what ops take and return: shape and dtype are
// always available, values only on concrete arrays (reading values of a
// traced tensor is a hybridization error).
//
// # Errors
//
// Bad input — shapes that do not match, unknown attributes, unsupported
// dtypes, out-of-range axes — is reported as an *Error naming the op, what
// was wrong, the inputs with their shapes, and the attributes:
//
//	broadcast_add: shapes 2x3 and 4 do not broadcast (dim 1: 3 vs 4) [inputs: lhs 2x3, rhs 4]
//
// Op.InferShape, Op.InferDType and Op.Forward return it as an error; F's
// methods, which are meant to be chained inside a forward, panic with it
// (use F.Apply to get the error instead). This package never prints or exits.
//
// # Broadcasting
//
// F.Add, F.Sub, F.Mul, F.Div and the other binary ops broadcast like numpy
// in every mode. The MXNet names broadcast_add, elemwise_add, _plus_scalar
// and so on all exist, for model files and for code ported from MXNet.
package ops
