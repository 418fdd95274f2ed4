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
