package optim

import (
	"fmt"
	"slices"

	"github.com/hybridgo/hybridgo/ops"
)

// gradBucket is a run of parameters whose gradients travel in one
// allreduce: packed into buf, or, for a bucket of one, sent in place.
type gradBucket struct {
	params []int // indices into Trainer.params
	dtype  ops.DType
	size   int // elements
	buf    any // []float32 or []float64 of size elements; nil for one parameter
}

// plan cuts the active parameters into buckets of at most bucketBytes,
// last parameters first (backward produces their gradients first), each
// bucket of one dtype.
func (t *Trainer) plan(active []int) error {
	if slices.Equal(active, t.planned) && t.buckets != nil {
		ok := true
		for _, b := range t.buckets {
			n := 0
			for _, i := range b.params {
				g := t.params[i].Grad()
				n += g.Size()
				ok = ok && g.DType() == b.dtype
			}
			ok = ok && n == b.size
		}
		if ok {
			return nil
		}
	}
	t.buckets = t.buckets[:0]
	var cur *gradBucket
	for k := len(active) - 1; k >= 0; k-- {
		i := active[k]
		g := t.params[i].Grad()
		dt := g.DType()
		if dt != ops.Float32 && dt != ops.Float64 {
			return fmt.Errorf("trainer: parameter %s: the %s store allreduces float32 and float64 gradients, not %v", t.params[i].Name(), t.store.Type(), dt)
		}
		bytes := g.Size() * dt.Size()
		if cur == nil || cur.dtype != dt || (cur.size*dt.Size()+bytes > t.bucketBytes && cur.size > 0) {
			t.buckets = append(t.buckets, gradBucket{dtype: dt})
			cur = &t.buckets[len(t.buckets)-1]
		}
		cur.params = append(cur.params, i)
		cur.size += g.Size()
	}
	for k := range t.buckets {
		if b := &t.buckets[k]; len(b.params) > 1 {
			b.buf = ops.MakeData(b.dtype, b.size)
		}
	}
	t.planned = append(t.planned[:0], active...)
	return nil
}

// allreduce sums the gradients of the active parameters over the workers,
// bucket by bucket: each bucket is started as soon as it is packed, so
// packing the next overlaps sending this one.
func (t *Trainer) allreduce(active []int) error {
	if err := t.plan(active); err != nil {
		return err
	}
	waits := make([]Waiter, len(t.buckets))
	for k := range t.buckets {
		b := &t.buckets[k]
		if b.buf == nil {
			waits[k] = t.store.StartAllreduce(t.params[b.params[0]].Grad().Data())
			continue
		}
		off := 0
		for _, i := range b.params {
			g := t.params[i].Grad().Data()
			off += copyInto(b.buf, off, g)
		}
		waits[k] = t.store.StartAllreduce(b.buf)
	}
	var first error
	for k, w := range waits {
		if err := w.Wait(); err != nil {
			if first == nil {
				first = fmt.Errorf("trainer: allreduce: %w", err)
			}
			continue
		}
		b := &t.buckets[k]
		if b.buf == nil {
			continue
		}
		off := 0
		for _, i := range b.params {
			off += copyFrom(t.params[i].Grad().Data(), b.buf, off)
		}
	}
	return first
}

func copyInto(dst any, off int, src any) int {
	switch d := dst.(type) {
	case []float32:
		return copy(d[off:], src.([]float32))
	case []float64:
		return copy(d[off:], src.([]float64))
	}
	return 0
}

func copyFrom(dst, src any, off int) int {
	switch d := dst.(type) {
	case []float32:
		return copy(d, src.([]float32)[off:])
	case []float64:
		return copy(d, src.([]float64)[off:])
	}
	return 0
}

// BroadcastParameters copies every parameter's values from rank 0 to the
// other workers (Horovod's broadcast_parameters), constants and running
// statistics included, so that all workers start from the same point.
// Step calls it before the first update if it has not been called; call
// it yourself right after initialisation (and after a first forward when
// shapes are deferred) so that the first gradients are computed from the
// same values everywhere. Without a store it does nothing.
func (t *Trainer) BroadcastParameters() error {
	if t.store == nil {
		return nil
	}
	for _, p := range t.params {
		if err := p.Ready(); err != nil {
			return fmt.Errorf("trainer: BroadcastParameters: %w", err)
		}
		d := p.Data()
		if dt := d.DType(); dt != ops.Float32 && dt != ops.Float64 {
			return fmt.Errorf("trainer: BroadcastParameters: parameter %s is %v; the %s store broadcasts float32 and float64", p.Name(), dt, t.store.Type())
		}
		if err := t.store.Broadcast(d.Data(), 0); err != nil {
			return fmt.Errorf("trainer: BroadcastParameters: parameter %s: %w", p.Name(), err)
		}
	}
	t.broadcast = true
	return nil
}
