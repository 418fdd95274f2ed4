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
