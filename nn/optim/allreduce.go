package optim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/hybridgo/hybridgo/eager"
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
// bucket of one dtype. It keeps the plan when the parameters and their
// gradients are as before, and says whether it made a new one.
func (t *Trainer) plan(active []int) (bool, error) {
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
			return false, nil
		}
	}
	t.buckets = t.buckets[:0]
	var cur *gradBucket
	for k := len(active) - 1; k >= 0; k-- {
		i := active[k]
		g := t.params[i].Grad()
		dt := g.DType()
		if dt != ops.Float32 && dt != ops.Float64 {
			return true, fmt.Errorf("trainer: parameter %s: the %s store allreduces float32 and float64 gradients, not %v", t.params[i].Name(), t.store.Type(), dt)
		}
		bytes := g.Size() * dt.Size()
		if cur == nil || cur.dtype != dt || (cur.size*dt.Size()+bytes > t.bucketBytes && cur.size > 0) {
			t.buckets = append(t.buckets, gradBucket{dtype: dt})
			cur = &t.buckets[len(t.buckets)-1]
		}
		cur.params = append(cur.params, i)
		cur.size += g.Size()
	}
	t.bucketOf = slices.Grow(t.bucketOf[:0], len(t.params))[:len(t.params)]
	for i := range t.bucketOf {
		t.bucketOf[i] = -1
	}
	for k := range t.buckets {
		b := &t.buckets[k]
		if len(b.params) > 1 {
			b.buf = ops.MakeData(b.dtype, b.size)
		}
		for _, i := range b.params {
			t.bucketOf[i] = k
		}
	}
	t.pending = make([]Waiter, len(t.buckets))
	t.ready = make([]int, len(t.buckets))
	t.seen = make([]bool, len(t.params))
	t.planned = append(t.planned[:0], active...)
	return true, nil
}

// startBucket packs bucket k and starts its allreduce.
func (t *Trainer) startBucket(k int) Waiter {
	b := &t.buckets[k]
	if b.buf == nil {
		return t.store.StartAllreduce(t.params[b.params[0]].Grad().Data())
	}
	off := 0
	for _, i := range b.params {
		off += copyInto(b.buf, off, t.params[i].Grad().Data())
	}
	return t.store.StartAllreduce(b.buf)
}

// allreduce sums the gradients of the active parameters over the workers,
// bucket by bucket. Buckets that the gradient hooks started during the
// backward pass (Overlap) are only waited for; the others are started
// here, each as soon as it is packed, so that packing the next overlaps
// sending this one.
func (t *Trainer) allreduce(active []int) error {
	started := slices.ContainsFunc(t.pending, func(w Waiter) bool { return w != nil })
	remade, err := t.plan(active)
	if err == nil && remade && started {
		err = errors.New("trainer: the trained parameters changed after the backward pass had started sending gradients (Overlap)")
	}
	if err != nil {
		return err
	}
	for k := range t.buckets {
		if t.pending[k] == nil {
			t.pending[k] = t.startBucket(k)
		}
	}
	first := t.overlapErr
	for k, w := range t.pending {
		err := w.Wait()
		t.pending[k], t.ready[k] = nil, 0
		if err != nil {
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
	clear(t.seen)
	t.overlapErr = nil
	t.hookParams()
	return first
}

// hookParams sets a gradient hook on each trained parameter (Overlap), so
// that the next backward pass starts a bucket's allreduce as soon as the
// last of its gradients is complete.
func (t *Trainer) hookParams() {
	if !t.overlap || t.store == nil || t.store.NumWorkers() == 1 {
		return
	}
	if t.hooked == nil {
		t.hooked = make([]*eager.NDArray, len(t.params))
	}
	for i, p := range t.params {
		if p.Ready() != nil || p.IsConstant() || p.GradReq() == eager.GradNull {
			continue
		}
		if d := p.Data(); t.hooked[i] != d {
			d.SetGradHook(func(*eager.NDArray) { t.gradReady(i) })
			t.hooked[i] = d
		}
	}
}

// gradReady is parameter i's gradient hook: the bucket whose last
// gradient this is starts its allreduce.
func (t *Trainer) gradReady(i int) {
	if i >= len(t.bucketOf) || t.bucketOf[i] < 0 {
		return
	}
	if t.seen[i] {
		t.overlapErr = errors.New("trainer: Overlap needs exactly one backward pass per Step (the gradient of " + t.params[i].Name() + " was computed twice)")
		return
	}
	t.seen[i] = true
	k := t.bucketOf[i]
	if t.ready[k]++; t.ready[k] == len(t.buckets[k].params) {
		t.pending[k] = t.startBucket(k)
	}
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
// same values everywhere. Without a store, or with one worker, it does
// nothing.
func (t *Trainer) BroadcastParameters() error {
	if t.store == nil || t.store.NumWorkers() == 1 {
		t.broadcast = true
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
	t.hookParams()
	return nil
}
