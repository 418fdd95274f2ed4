package ops

// Comparison and logic. As in MXNet, the result has the input's dtype and
// holds 1 where the condition holds and 0 elsewhere, so it can multiply a
// gradient or feed F.Where. Their gradients are zero.

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

var opEqual, opNotEqual, opGreater, opGreaterEqual, opLesser, opLesserEqual, opLogicalAnd, opLogicalOr, opLogicalXor, opEqualScalar, opNotEqualScalar, opGreaterScalar, opGreaterEqualScalar, opLesserScalar, opLesserEqualScalar, opLogicalAndScalar, opLogicalOrScalar, opLogicalXorScalar, opLogicalNot *Op

func init() {
	opEqual = registerBroadcast(binaryMath{name: "broadcast_equal", aliases: []string{"_equal", "_Equal"}, doc: "1 where a == b, else 0 (broadcasting).", f: func(x, y float64) float64 { return boolf(x == y) }})
	opNotEqual = registerBroadcast(binaryMath{name: "broadcast_not_equal", aliases: []string{"_not_equal", "_Not_Equal"}, doc: "1 where a != b, else 0 (broadcasting).", f: func(x, y float64) float64 { return boolf(x != y) }})
	opGreater = registerBroadcast(binaryMath{name: "broadcast_greater", aliases: []string{"_greater", "_Greater"}, doc: "1 where a > b, else 0 (broadcasting).", f: func(x, y float64) float64 { return boolf(x > y) }})
	opGreaterEqual = registerBroadcast(binaryMath{name: "broadcast_greater_equal", aliases: []string{"_greater_equal", "_Greater_Equal"}, doc: "1 where a >= b, else 0 (broadcasting).", f: func(x, y float64) float64 { return boolf(x >= y) }})
	opLesser = registerBroadcast(binaryMath{name: "broadcast_lesser", aliases: []string{"_lesser", "_Lesser"}, doc: "1 where a < b, else 0 (broadcasting).", f: func(x, y float64) float64 { return boolf(x < y) }})
	opLesserEqual = registerBroadcast(binaryMath{name: "broadcast_lesser_equal", aliases: []string{"_lesser_equal", "_Lesser_Equal"}, doc: "1 where a <= b, else 0 (broadcasting).", f: func(x, y float64) float64 { return boolf(x <= y) }})
	opLogicalAnd = registerBroadcast(binaryMath{name: "broadcast_logical_and", aliases: []string{"_logical_and", "_Logical_And"}, doc: "1 where a and b are both non-zero (broadcasting).", f: func(x, y float64) float64 { return boolf(x != 0 && y != 0) }})
	opLogicalOr = registerBroadcast(binaryMath{name: "broadcast_logical_or", aliases: []string{"_logical_or", "_Logical_Or"}, doc: "1 where a or b is non-zero (broadcasting).", f: func(x, y float64) float64 { return boolf(x != 0 || y != 0) }})
	opLogicalXor = registerBroadcast(binaryMath{name: "broadcast_logical_xor", aliases: []string{"_logical_xor", "_Logical_Xor"}, doc: "1 where exactly one of a and b is non-zero (broadcasting).", f: func(x, y float64) float64 { return boolf((x != 0) != (y != 0)) }})

	opEqualScalar = registerScalar(scalarMath{name: "_equal_scalar", aliases: []string{"_EqualScalar"}, doc: "1 where x == scalar, else 0.", f: func(x, s float64) float64 { return boolf(x == s) }})
	opNotEqualScalar = registerScalar(scalarMath{name: "_not_equal_scalar", aliases: []string{"_NotEqualScalar"}, doc: "1 where x != scalar, else 0.", f: func(x, s float64) float64 { return boolf(x != s) }})
	opGreaterScalar = registerScalar(scalarMath{name: "_greater_scalar", aliases: []string{"_GreaterScalar"}, doc: "1 where x > scalar, else 0.", f: func(x, s float64) float64 { return boolf(x > s) }})
	opGreaterEqualScalar = registerScalar(scalarMath{name: "_greater_equal_scalar", aliases: []string{"_GreaterEqualScalar"}, doc: "1 where x >= scalar, else 0.", f: func(x, s float64) float64 { return boolf(x >= s) }})
	opLesserScalar = registerScalar(scalarMath{name: "_lesser_scalar", aliases: []string{"_LesserScalar"}, doc: "1 where x < scalar, else 0.", f: func(x, s float64) float64 { return boolf(x < s) }})
	opLesserEqualScalar = registerScalar(scalarMath{name: "_lesser_equal_scalar", aliases: []string{"_LesserEqualScalar"}, doc: "1 where x <= scalar, else 0.", f: func(x, s float64) float64 { return boolf(x <= s) }})
	opLogicalAndScalar = registerScalar(scalarMath{name: "_logical_and_scalar", aliases: []string{"_LogicalAndScalar"}, doc: "1 where x and scalar are both non-zero.", f: func(x, s float64) float64 { return boolf(x != 0 && s != 0) }})
	opLogicalOrScalar = registerScalar(scalarMath{name: "_logical_or_scalar", aliases: []string{"_LogicalOrScalar"}, doc: "1 where x or scalar is non-zero.", f: func(x, s float64) float64 { return boolf(x != 0 || s != 0) }})
	opLogicalXorScalar = registerScalar(scalarMath{name: "_logical_xor_scalar", aliases: []string{"_LogicalXorScalar"}, doc: "1 where exactly one of x and scalar is non-zero.", f: func(x, s float64) float64 { return boolf((x != 0) != (s != 0)) }})

	opLogicalNot = registerUnary(unaryMath{name: "logical_not", doc: "1 where x is zero, else 0.", f: func(x float64) float64 { return boolf(x == 0) }})
}

// Equal returns 1 where a == b, else 0 (broadcasting).
func (f F) Equal(a, b Tensor) Tensor { return f.callA(opEqual, &NoAttrs{}, a, b) }

// NotEqual returns 1 where a != b, else 0 (broadcasting).
func (f F) NotEqual(a, b Tensor) Tensor { return f.callA(opNotEqual, &NoAttrs{}, a, b) }

// Greater returns 1 where a > b, else 0 (broadcasting).
func (f F) Greater(a, b Tensor) Tensor { return f.callA(opGreater, &NoAttrs{}, a, b) }

// GreaterEqual returns 1 where a >= b, else 0 (broadcasting).
func (f F) GreaterEqual(a, b Tensor) Tensor { return f.callA(opGreaterEqual, &NoAttrs{}, a, b) }

// Lesser returns 1 where a < b, else 0 (broadcasting).
func (f F) Lesser(a, b Tensor) Tensor { return f.callA(opLesser, &NoAttrs{}, a, b) }

// LesserEqual returns 1 where a <= b, else 0 (broadcasting).
func (f F) LesserEqual(a, b Tensor) Tensor { return f.callA(opLesserEqual, &NoAttrs{}, a, b) }

// LogicalAnd returns 1 where a and b are both non-zero (broadcasting).
func (f F) LogicalAnd(a, b Tensor) Tensor { return f.callA(opLogicalAnd, &NoAttrs{}, a, b) }

// LogicalOr returns 1 where a or b is non-zero (broadcasting).
func (f F) LogicalOr(a, b Tensor) Tensor { return f.callA(opLogicalOr, &NoAttrs{}, a, b) }

// LogicalXor returns 1 where exactly one of a and b is non-zero (broadcasting).
func (f F) LogicalXor(a, b Tensor) Tensor { return f.callA(opLogicalXor, &NoAttrs{}, a, b) }

// LogicalNot returns 1 where x is zero, else 0.
func (f F) LogicalNot(x Tensor) Tensor { return f.callA(opLogicalNot, &NoAttrs{}, x) }

// EqualScalar returns 1 where x == s, else 0.
func (f F) EqualScalar(x Tensor, s float64) Tensor { return f.scalar(opEqualScalar, x, s) }

// NotEqualScalar returns 1 where x != s, else 0.
func (f F) NotEqualScalar(x Tensor, s float64) Tensor { return f.scalar(opNotEqualScalar, x, s) }

// GreaterScalar returns 1 where x > s, else 0.
func (f F) GreaterScalar(x Tensor, s float64) Tensor { return f.scalar(opGreaterScalar, x, s) }

// GreaterEqualScalar returns 1 where x >= s, else 0.
func (f F) GreaterEqualScalar(x Tensor, s float64) Tensor {
	return f.scalar(opGreaterEqualScalar, x, s)
}

// LesserScalar returns 1 where x < s, else 0.
func (f F) LesserScalar(x Tensor, s float64) Tensor { return f.scalar(opLesserScalar, x, s) }

// LesserEqualScalar returns 1 where x <= s, else 0.
func (f F) LesserEqualScalar(x Tensor, s float64) Tensor { return f.scalar(opLesserEqualScalar, x, s) }

// LogicalAndScalar returns 1 where x and s are both non-zero.
func (f F) LogicalAndScalar(x Tensor, s float64) Tensor { return f.scalar(opLogicalAndScalar, x, s) }

// LogicalOrScalar returns 1 where x or s is non-zero.
func (f F) LogicalOrScalar(x Tensor, s float64) Tensor { return f.scalar(opLogicalOrScalar, x, s) }

// LogicalXorScalar returns 1 where exactly one of x and s is non-zero.
func (f F) LogicalXorScalar(x Tensor, s float64) Tensor { return f.scalar(opLogicalXorScalar, x, s) }
