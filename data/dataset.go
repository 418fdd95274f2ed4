package data

import (
	"fmt"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// Dataset is indexable data: Len samples, and Get(i) returning the fields of
// sample i (for example an image and its label), one NDArray per field.
//
// A DataLoader with Workers > 0 calls Get from several goroutines at once,
// so a Dataset used that way must be safe for concurrent reads.
type Dataset interface {
	Len() int
	Get(i int) ([]*eager.NDArray, error)
}

// ArrayDataset zips arrays along their first axis: sample i is
// (a0[i], a1[i], …). It is Gluon's gluon.data.ArrayDataset.
//
// A field taken from a 1-D array is a scalar (an NDArray of shape ()), so
// a batch of labels stacks to shape (batch,), as in Gluon.
type ArrayDataset struct {
	arrays []*eager.NDArray
	n      int
}

var _ Dataset = (*ArrayDataset)(nil)

// NewArrayDataset zips arrays along their first axis. Every array needs at
// least one dimension, and all must have the same first dim; the error
// names the shapes that disagree. The arrays are not copied: changing them
// changes the samples.
func NewArrayDataset(arrays ...*eager.NDArray) (*ArrayDataset, error) {
	if len(arrays) == 0 {
		return nil, fmt.Errorf("data: NewArrayDataset needs at least one array")
	}
	for i, a := range arrays {
		if a == nil {
			return nil, fmt.Errorf("data: NewArrayDataset: array %d is nil", i)
		}
		if a.NDim() == 0 {
			return nil, fmt.Errorf("data: NewArrayDataset: array %d is a scalar; each array needs a first axis to index samples along", i)
		}
		if _, ok := ops.DTypeOfData(a.Data()); !ok {
			return nil, fmt.Errorf("data: NewArrayDataset: array %d has dtype %v, which has no storage", i, a.DType())
		}
	}
	n := arrays[0].Shape()[0]
	for i, a := range arrays[1:] {
		if m := a.Shape()[0]; m != n {
			return nil, fmt.Errorf("data: NewArrayDataset: the arrays must have the same first dim, but array 0 has shape %v (%d samples) and array %d has shape %v (%d samples)",
				arrays[0].Shape().Tuple(), n, i+1, a.Shape().Tuple(), m)
		}
	}
	return &ArrayDataset{arrays: append([]*eager.NDArray(nil), arrays...), n: n}, nil
}

// Len is the number of samples, the arrays' common first dim.
func (d *ArrayDataset) Len() int { return d.n }

// Arrays returns the zipped arrays (the slice is a copy; the arrays are not).
func (d *ArrayDataset) Arrays() []*eager.NDArray { return append([]*eager.NDArray(nil), d.arrays...) }

// Get returns sample i: row i of each array, copied, with the first axis
// dropped. A negative i counts from the end, as Python indexing does.
func (d *ArrayDataset) Get(i int) ([]*eager.NDArray, error) {
	j, err := d.index(i)
	if err != nil {
		return nil, err
	}
	out := make([]*eager.NDArray, len(d.arrays))
	for f, a := range d.arrays {
		shape := a.Shape()[1:]
		row := shape.Size()
		buf := ops.MakeData(a.DType(), row)
		copyElems(buf, 0, a.Data(), j*row, row)
		out[f] = eager.FromValue(ops.Value{Shape: shape, DType: a.DType(), Data: buf})
	}
	return out, nil
}

func (d *ArrayDataset) index(i int) (int, error) {
	j := i
	if j < 0 {
		j += d.n
	}
	if j < 0 || j >= d.n {
		return 0, fmt.Errorf("data: sample index %d is out of range for a dataset of %d samples", i, d.n)
	}
	return j, nil
}

// batch gathers the rows at idx straight into the batch arrays, skipping
// the per-sample copies that Get followed by stacking would make.
func (d *ArrayDataset) batch(idx []int) ([]*eager.NDArray, error) {
	for _, i := range idx {
		if _, err := d.index(i); err != nil {
			return nil, err
		}
	}
	out := make([]*eager.NDArray, len(d.arrays))
	for f, a := range d.arrays {
		rest := a.Shape()[1:]
		row := rest.Size()
		shape := append(ops.Shape{len(idx)}, rest...)
		buf := ops.MakeData(a.DType(), len(idx)*row)
		src := a.Data()
		for k, i := range idx {
			if i < 0 {
				i += d.n
			}
			copyElems(buf, k*row, src, i*row, row)
		}
		out[f] = eager.FromValue(ops.Value{Shape: shape, DType: a.DType(), Data: buf})
	}
	return out, nil
}

// batcher is a dataset that can build a whole batch faster than sample by
// sample.
type batcher interface {
	batch(idx []int) ([]*eager.NDArray, error)
}

// Transform returns a dataset whose sample i is fn applied to d's sample i.
// fn runs each time a sample is read (Gluon's transform with lazy=True);
// it may return a different number of fields than it receives. With a
// loader's Workers > 0, fn is called from several goroutines at once.
func Transform(d Dataset, fn func(sample []*eager.NDArray) ([]*eager.NDArray, error)) Dataset {
	return &transformed{d: d, fn: fn}
}

// TransformFirst is Transform applied to the first field only, the rest
// passing through: Gluon's transform_first, the usual way to augment images
// and leave labels alone.
func TransformFirst(d Dataset, fn func(x *eager.NDArray) (*eager.NDArray, error)) Dataset {
	return Transform(d, func(s []*eager.NDArray) ([]*eager.NDArray, error) {
		if len(s) == 0 {
			return nil, fmt.Errorf("data: TransformFirst: the sample has no fields")
		}
		x, err := fn(s[0])
		if err != nil {
			return nil, err
		}
		out := append([]*eager.NDArray{x}, s[1:]...)
		return out, nil
	})
}

type transformed struct {
	d  Dataset
	fn func([]*eager.NDArray) ([]*eager.NDArray, error)
}

func (t *transformed) Len() int { return t.d.Len() }

func (t *transformed) Get(i int) ([]*eager.NDArray, error) {
	s, err := t.d.Get(i)
	if err != nil {
		return nil, err
	}
	out, err := t.fn(s)
	if err != nil {
		return nil, fmt.Errorf("data: transforming sample %d: %w", i, err)
	}
	return out, nil
}

// copyElems copies n elements from src[so:] to dst[do:]; both are data
// slices (ops.MakeData) of the same element type. It reports whether the
// types matched.
func copyElems(dst any, do int, src any, so, n int) bool {
	switch d := dst.(type) {
	case []float32:
		return copyTyped(d, do, src, so, n)
	case []float64:
		return copyTyped(d, do, src, so, n)
	case []uint8:
		return copyTyped(d, do, src, so, n)
	case []int8:
		return copyTyped(d, do, src, so, n)
	case []int32:
		return copyTyped(d, do, src, so, n)
	case []int64:
		return copyTyped(d, do, src, so, n)
	case []bool:
		return copyTyped(d, do, src, so, n)
	}
	return false
}

func copyTyped[T any](dst []T, do int, src any, so, n int) bool {
	s, ok := src.([]T)
	if !ok {
		return false
	}
	copy(dst[do:do+n], s[so:so+n])
	return true
}
