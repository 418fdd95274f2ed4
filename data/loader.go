package data

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"sync"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// LoaderOptions configures a DataLoader.
type LoaderOptions struct {
	// BatchSize is the number of samples per batch; required (> 0).
	BatchSize int
	// Shuffle reorders the samples at the start of every epoch.
	Shuffle bool
	// LastBatch says what happens to a last batch smaller than BatchSize:
	// "keep" (the default) yields it as it is, "discard" drops it, and
	// "rollover" carries its samples to the start of the next epoch.
	LastBatch string
	// Workers is the number of goroutines preparing batches ahead of the
	// consumer; 0 prepares each batch in the caller's goroutine when it is
	// asked for. Batches come in the same order either way.
	Workers int
	// Seed seeds shuffling. Epoch k of a loader (counting from 0) uses a
	// permutation drawn from (Seed, k), so each epoch has its own order and
	// two loaders with the same Seed give the same sequence of epochs.
	Seed uint64
	// NumShards and ShardIndex give this loader one part of every epoch,
	// as PyTorch's DistributedSampler does for data-parallel training:
	// the epoch's order (shuffled from Seed, the same on every worker) is
	// padded with its own first samples to a multiple of NumShards, and
	// shard k takes the samples at positions k, k+NumShards, k+2*NumShards,
	// and so on. The shards are disjoint (but for the padding) and of
	// equal length, ceil(n/NumShards), so every worker makes the same
	// number of steps. With a per-worker batch of B/NumShards, the
	// workers' batches together are exactly the batches of size B that
	// one unsharded loader gives. 0 or 1 shard: the whole dataset.
	NumShards, ShardIndex int
}

// The LastBatch choices.
const (
	LastBatchKeep     = "keep"
	LastBatchDiscard  = "discard"
	LastBatchRollover = "rollover"
)

// DataLoader batches a Dataset: Gluon's gluon.data.DataLoader. Range over
// Epoch for each pass over the data.
//
// A DataLoader may be shared between goroutines, but its epochs are
// numbered (for shuffling and rollover) in the order they start.
type DataLoader struct {
	d Dataset
	o LoaderOptions

	mu    sync.Mutex
	epoch uint64 // epochs started so far
	carry []int  // rollover samples for the next epoch
}

// NewDataLoader returns a loader over d. BatchSize must be positive,
// LastBatch one of "", "keep", "discard" or "rollover", and Workers not
// negative.
func NewDataLoader(d Dataset, o LoaderOptions) (*DataLoader, error) {
	if d == nil {
		return nil, fmt.Errorf("data: NewDataLoader: the dataset is nil")
	}
	if o.BatchSize <= 0 {
		return nil, fmt.Errorf("data: NewDataLoader: BatchSize is %d; it must be positive", o.BatchSize)
	}
	switch o.LastBatch {
	case "":
		o.LastBatch = LastBatchKeep
	case LastBatchKeep, LastBatchDiscard, LastBatchRollover:
	default:
		return nil, fmt.Errorf("data: NewDataLoader: LastBatch %q is not one of \"keep\", \"discard\", \"rollover\"", o.LastBatch)
	}
	if o.Workers < 0 {
		return nil, fmt.Errorf("data: NewDataLoader: Workers is %d; it must be 0 or more", o.Workers)
	}
	if o.NumShards < 0 || o.ShardIndex < 0 || (o.ShardIndex > 0 && o.ShardIndex >= o.NumShards) {
		return nil, fmt.Errorf("data: NewDataLoader: ShardIndex %d of NumShards %d; want 0 <= ShardIndex < NumShards", o.ShardIndex, o.NumShards)
	}
	o.NumShards = max(o.NumShards, 1)
	return &DataLoader{d: d, o: o}, nil
}

// Options returns the loader's options, with LastBatch and NumShards
// filled in.
func (l *DataLoader) Options() LoaderOptions { return l.o }

// NumBatches is the number of batches the next epoch yields: ceil(n/b)
// with "keep", floor(n/b) with "discard", and with "rollover"
// floor((carried+n)/b), where carried is the number of samples the
// previous epoch passed on.
func (l *DataLoader) NumBatches() int {
	l.mu.Lock()
	carried := len(l.carry)
	l.mu.Unlock()
	n, b := l.shardLen(), l.o.BatchSize
	switch l.o.LastBatch {
	case LastBatchDiscard:
		return n / b
	case LastBatchRollover:
		return (carried + n) / b
	}
	return (n + b - 1) / b
}

// shardLen is the number of samples of this loader's shard per epoch.
func (l *DataLoader) shardLen() int {
	s := l.o.NumShards
	return (l.d.Len() + s - 1) / s
}

// Epoch returns one pass over the data, as an iterator of batches:
//
//	for batch, err := range loader.Epoch() {
//		if err != nil {
//			return err
//		}
//		x, y := batch[0], batch[1]
//		…
//	}
//
// A batch holds one NDArray per field, the samples stacked on a new first
// axis: a dataset of (1x28x28 image, scalar label) samples gives batches
// of shape (b, 1, 28, 28) and (b,).
//
// The epoch starts (is numbered, shuffled, and settles its rollover) when
// ranging begins, so each range over the returned iterator is a new epoch.
// An error (a sample that cannot be read, samples whose shapes differ) is
// yielded with a nil batch and ends the epoch. Breaking out of the loop
// stops the workers; they have all returned by the time the loop ends.
func (l *DataLoader) Epoch() iter.Seq2[[]*eager.NDArray, error] {
	return func(yield func([]*eager.NDArray, error) bool) {
		batches := l.plan()
		if l.o.Workers == 0 {
			for _, idx := range batches {
				b, err := l.load(idx)
				if !yield(b, err) || err != nil {
					return
				}
			}
			return
		}
		l.parallel(batches, yield)
	}
}

// plan starts an epoch: it fixes the order of the samples and cuts it into
// batches, and for "rollover" keeps the remainder for the next epoch.
func (l *DataLoader) plan() [][]int {
	n, b := l.d.Len(), l.o.BatchSize
	l.mu.Lock()
	epoch := l.epoch
	l.epoch++
	order := make([]int, 0, len(l.carry)+n)
	order = append(order, l.carry...)
	l.carry = nil
	l.mu.Unlock()

	var all []int
	if l.o.Shuffle {
		all = rand.New(rand.NewPCG(l.o.Seed, epoch)).Perm(n)
	} else {
		all = make([]int, n)
		for i := range n {
			all[i] = i
		}
	}
	if s := l.o.NumShards; s > 1 && n > 0 {
		for k := l.o.ShardIndex; k < s*l.shardLen(); k += s {
			order = append(order, all[k%n])
		}
	} else {
		order = append(order, all...)
	}

	var batches [][]int
	for len(order) >= b {
		batches = append(batches, order[:b:b])
		order = order[b:]
	}
	if len(order) > 0 {
		switch l.o.LastBatch {
		case LastBatchKeep:
			batches = append(batches, order)
		case LastBatchRollover:
			l.mu.Lock()
			l.carry = append(order[:0:0], order...)
			l.mu.Unlock()
		}
	}
	return batches
}

type result struct {
	batch []*eager.NDArray
	err   error
}

type job struct {
	idx  []int
	slot chan result
}

// parallel prepares batches on l.o.Workers goroutines and yields them in
// order. At most 2*Workers batches are queued ahead of the consumer. The
// deferred close of done stops every goroutine, and the wait makes sure
// they have returned before parallel does.
func (l *DataLoader) parallel(batches [][]int, yield func([]*eager.NDArray, error) bool) {
	done := make(chan struct{})
	ordered := make(chan chan result, 2*l.o.Workers)
	jobs := make(chan job)
	var wg sync.WaitGroup
	defer func() {
		close(done)
		wg.Wait()
	}()

	wg.Go(func() {
		defer close(ordered)
		defer close(jobs)
		for _, idx := range batches {
			slot := make(chan result, 1)
			select {
			case ordered <- slot:
			case <-done:
				return
			}
			select {
			case jobs <- job{idx, slot}:
			case <-done:
				return
			}
		}
	})
	for range l.o.Workers {
		wg.Go(func() {
			for {
				select {
				case j, ok := <-jobs:
					if !ok {
						return
					}
					b, err := l.load(j.idx)
					j.slot <- result{b, err} // the slot has room for one
				case <-done:
					return
				}
			}
		})
	}

	for slot := range ordered {
		r := <-slot
		if !yield(r.batch, r.err) || r.err != nil {
			return
		}
	}
}

// load builds the batch of the samples at idx. A panic in the dataset (an
// op given bad input inside a transform, say) becomes an error.
func (l *DataLoader) load(idx []int) (batch []*eager.NDArray, err error) {
	defer func() {
		if p := recover(); p != nil {
			batch = nil
			if e, ok := p.(error); ok {
				err = fmt.Errorf("data: reading a batch: %w", e)
			} else {
				err = fmt.Errorf("data: reading a batch: %v", p)
			}
		}
	}()
	if bd, ok := l.d.(batcher); ok {
		return bd.batch(idx)
	}
	samples := make([][]*eager.NDArray, len(idx))
	for k, i := range idx {
		s, err := l.d.Get(i)
		if err != nil {
			return nil, err
		}
		samples[k] = s
	}
	return Stack(samples, idx)
}

// Stack makes a batch of samples: for each field, the samples' arrays
// stacked on a new first axis (Gluon's default batchify function). Every
// sample needs the same number of fields, and each field the same shape
// and dtype across samples. idx, if not nil, gives the dataset index of
// each sample for the error messages.
func Stack(samples [][]*eager.NDArray, idx []int) ([]*eager.NDArray, error) {
	if len(samples) == 0 {
		return nil, fmt.Errorf("data: Stack: no samples")
	}
	name := func(k int) int {
		if idx != nil {
			return idx[k]
		}
		return k
	}
	first := samples[0]
	for k, s := range samples {
		if len(s) != len(first) {
			return nil, fmt.Errorf("data: sample %d has %d fields, sample %d has %d", name(0), len(first), name(k), len(s))
		}
		for f, a := range s {
			if a == nil {
				return nil, fmt.Errorf("data: field %d of sample %d is nil", f, name(k))
			}
		}
	}
	out := make([]*eager.NDArray, len(first))
	for f, a0 := range first {
		shape, dtype := a0.Shape(), a0.DType()
		size := shape.Size()
		buf := ops.MakeData(dtype, len(samples)*size)
		for k, s := range samples {
			a := s[f]
			if a.DType() != dtype || !a.Shape().Equal(shape) {
				return nil, fmt.Errorf("data: cannot stack field %d: sample %d is %v %v, sample %d is %v %v",
					f, name(0), shape.Tuple(), dtype, name(k), a.Shape().Tuple(), a.DType())
			}
			if !copyElems(buf, k*size, a.Data(), 0, size) {
				return nil, fmt.Errorf("data: cannot stack field %d of sample %d: its storage %T does not match dtype %v", f, name(k), a.Data(), dtype)
			}
		}
		bshape := append(ops.Shape{len(samples)}, shape...)
		out[f] = eager.FromValue(ops.Value{Shape: bshape, DType: dtype, Data: buf})
	}
	return out, nil
}
