package nn

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// Summary runs the block once on inputs and returns a table with a row per
// block that ran (its name, without the summarised block's prefix, and its
// type, in the order the blocks finished), its
// output shapes and the number of values in its own parameters, and the
// totals, as Gluon's summary prints:
//
//	--------------------------------------------------------------------------------
//	        Layer (type)                                Output Shape         Param #
//	================================================================================
//	               Input                                    (2, 784)               0
//	      dense0 (Dense)                                     (2, 16)           12560
//	      dense1 (Dense)                                     (2, 10)             170
//	================================================================================
//	Parameters in forward computation graph, duplicate included
//	   Total params: 12730
//	…
//
// The layer column widens for longer names. Sequential and HybridSequential containers get no row of their own. A
// hybridized block is allowed: the forward runs eagerly, without the tape
// and in predict mode, so that every block's hooks see it, and the block
// is left hybridized with its cached graphs. Parameters waiting for
// deferred initialisation are initialised by the forward.
func (c *core) Summary(inputs ...*eager.NDArray) (table string, err error) {
	type row struct {
		layer, shape              string
		params, trainable, shared int
	}
	var inShapes []string
	for _, x := range inputs {
		inShapes = append(inShapes, x.Shape().Tuple())
	}
	rows := []row{{layer: "Input", shape: strings.Join(inShapes, ", ")}}
	seen := map[*Parameter]bool{}
	var handles []HookHandle
	type hybridState struct {
		b      *HybridBlock
		active bool
	}
	var states []hybridState
	c.walk(func(b *core) {
		if h := b.hybrid; h != nil {
			h.mu.Lock()
			states = append(states, hybridState{h, h.active})
			h.active = false
			h.mu.Unlock()
		}
		if isContainer(b) {
			return
		}
		handles = append(handles, b.RegisterForwardHook(func(name string, _, outs []ops.Tensor) {
			if b != c {
				name = strings.TrimPrefix(name, c.prefix)
			}
			r := row{layer: fmt.Sprintf("%s (%s)", name, typeOf(b))}
			var shapes []string
			for _, o := range outs {
				shapes = append(shapes, o.Shape().Tuple())
			}
			r.shape = strings.Join(shapes, ", ")
			for _, p := range b.own {
				n := p.shape.Size()
				r.params += n
				if p.gradReq != eager.GradNull && !p.constant {
					r.trainable += n
				}
				if seen[p] {
					r.shared += n
				}
				seen[p] = true
			}
			rows = append(rows, r)
		}))
	})
	defer func() {
		for _, h := range handles {
			h.Detach()
		}
		for _, s := range states {
			s.b.mu.Lock()
			s.b.active = s.active
			s.b.mu.Unlock()
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			table, err = "", fmt.Errorf("%s: summary: %w", c.Name(), e)
		}
	}()
	xs := make([]ops.Tensor, len(inputs))
	for i, x := range inputs {
		xs[i] = x
	}
	eager.Pause(func() {
		switch {
		case c.hybrid != nil:
			c.hybrid.ForwardN(xs...)
		case c.plain != nil:
			c.plain.Forward(xs...)
		default:
			panic(fmt.Errorf("the block was not bound: call Bind(self) in its constructor"))
		}
	})

	wLayer, wShape := 20, 42
	for _, r := range rows {
		wLayer, wShape = max(wLayer, len(r.layer)), max(wShape, len(r.shape))
	}
	width := wLayer + 2 + wShape + 1 + 15
	var b strings.Builder
	line := func(layer, shape string, params any) {
		fmt.Fprintf(&b, "%*s  %*s %15v\n", wLayer, layer, wShape, shape, params)
	}
	b.WriteString(strings.Repeat("-", width) + "\n")
	line("Layer (type)", "Output Shape", "Param #")
	b.WriteString(strings.Repeat("=", width) + "\n")
	total, trainable, shared := 0, 0, 0
	for _, r := range rows {
		line(r.layer, r.shape, r.params)
		total += r.params
		trainable += r.trainable
		shared += r.shared
	}
	b.WriteString(strings.Repeat("=", width) + "\n")
	fmt.Fprintf(&b, "Parameters in forward computation graph, duplicate included\n")
	fmt.Fprintf(&b, "   Total params: %d\n", total)
	fmt.Fprintf(&b, "   Trainable params: %d\n", trainable)
	fmt.Fprintf(&b, "   Non-trainable params: %d\n", total-trainable)
	fmt.Fprintf(&b, "Shared params in forward computation graph: %d\n", shared)
	fmt.Fprintf(&b, "Unique parameters in model: %d\n", total-shared)
	b.WriteString(strings.Repeat("-", width) + "\n")
	return b.String(), nil
}

// isContainer reports whether the block is a Sequential or HybridSequential,
// which Summary leaves out as Gluon does.
func isContainer(c *core) bool {
	if !c.outer.IsValid() || !c.outer.CanInterface() {
		return false
	}
	switch c.outer.Interface().(type) {
	case *Sequential, *HybridSequential:
		return true
	}
	return false
}

// typeOf names the block's Go type ("Dense").
func typeOf(c *core) string {
	if c.outer.IsValid() {
		t := c.outer.Type()
		if t.Kind() == reflect.Pointer && t.Elem().Name() != "" {
			return t.Elem().Name()
		}
	}
	return c.typeName
}
