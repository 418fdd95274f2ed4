package ops

// broadcast_to and broadcast_like: stretch dims of size 1 (the explicit
// form of what the arithmetic ops do implicitly).

// BroadcastToAttrs are the attributes of broadcast_to.
type BroadcastToAttrs struct {
	Shape Tuple `attr:"shape" default:"()" doc:"target shape; 0 keeps the input's dim"`
}

var opBroadcastTo, opBroadcastLike *Op

func init() {
	opBroadcastTo = Register(Def[BroadcastToAttrs]{
		Name: "broadcast_to", Kind: "shape", Doc: "Broadcasts the input to a shape: each target dim must equal the input's or the input's must be 1; 0 keeps the input's dim.",
		Inputs: []string{"data"},
		Shape: func(a *BroadcastToAttrs, in []Shape) ([]Shape, error) {
			target := Shape(a.Shape).Clone()
			if len(target) < len(in[0]) {
				return nil, Errorf("cannot broadcast %v to the shorter shape %v", in[0], Shape(a.Shape))
			}
			off := len(target) - len(in[0])
			for i, d := range in[0] {
				t := target[off+i]
				switch {
				case t == 0:
					target[off+i] = d
				case d != 1 && d != 0 && d != t:
					return nil, Errorf("cannot broadcast %v to %v: dim %d is %d, not 1 or %d", in[0], Shape(a.Shape), i, d, t)
				}
			}
			return []Shape{target}, nil
		},
		Kernel: func(_ *Env, _ *BroadcastToAttrs, in, out []Value) error { return broadcastCopy(in[0], out[0]) },
		Grad: func(f F, _ *BroadcastToAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.SumLike(g[0], in[0])}
		},
		Samples: []Sample{{Attrs: map[string]string{"shape": "(2, 3)"}, Inputs: []Shape{{1, 3}}},
			{Attrs: map[string]string{"shape": "(4, 0, 3)"}, Inputs: []Shape{{2, 1}}}},
	})

	opBroadcastLike = Register(Def[NoAttrs]{
		Name: "broadcast_like", Kind: "shape", Doc: "Broadcasts lhs to the shape of rhs.",
		Inputs: []string{"lhs", "rhs"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			b, err := BroadcastShapes(in[0], in[1])
			if err != nil || (in[1].Known() && !b.Equal(in[1])) {
				return nil, Errorf("cannot broadcast %v to %v", in[0], in[1])
			}
			return []Shape{in[1].Clone()}, nil
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error { return broadcastCopy(in[0], out[0]) },
		Grad: func(f F, _ *NoAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.SumLike(g[0], in[0]), nil}
		},
		Samples: []Sample{{Inputs: []Shape{{3, 1}, {2, 3, 4}}}},
	})
}

// broadcastCopy copies in into the larger out, repeating along broadcast dims.
func broadcastCopy(in, out Value) error {
	// Adding zero through the broadcasting binary loop is the copy.
	zero := Value{Shape: Shape{}, DType: in.DType, Data: MakeData(in.DType, 1)}
	return mapBinary(in, zero, out, func(x, _ float64) float64 { return x })
}

// BroadcastTo broadcasts x to shape (0 keeps x's dim).
func (f F) BroadcastTo(x Tensor, shape ...int) Tensor {
	return f.callA(opBroadcastTo, &BroadcastToAttrs{Shape: shape}, x)
}

// BroadcastLike broadcasts x to the shape of like.
func (f F) BroadcastLike(x, like Tensor) Tensor { return f.callA(opBroadcastLike, &NoAttrs{}, x, like) }
