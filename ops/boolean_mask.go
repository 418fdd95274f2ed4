package ops

import "fmt"

// boolean_mask (MXNet's _contrib_boolean_mask): the slices of data along
// an axis where a mask is non-zero. How many there are depends on the
// mask's values, which a traced graph does not have, so it is not an op of
// the registry (whose shape rules see shapes only) but an F method that
// runs eagerly: it reads the mask and takes the slices with take, whose
// gradient it gets.

// booleanMaskName is the name MXNet gives the op, used in its errors.
const booleanMaskName = "_contrib_boolean_mask"

// BooleanMask returns the slices of data along axis at the positions where
// index (1-D, as long as that axis) is not zero, in order; the gradient
// flows back to data at those positions. It runs only eagerly: the
// result's shape depends on the mask's values, so it cannot be traced
// (in a hybridized block, F.Where keeps the shape). A mask that selects
// nothing is an error, as hybridgo has no empty arrays.
func (f F) BooleanMask(data, index Tensor, axis int) Tensor {
	ds, is := data.Shape(), index.Shape()
	ax, err := NormAxis(axis, len(ds))
	if err != nil {
		panic(&Error{Op: booleanMaskName, Msg: fmt.Sprintf("axis=%d is out of range for data %v", axis, ds)})
	}
	if len(is) != 1 || is[0] != ds[ax] {
		panic(&Error{Op: booleanMaskName, Msg: fmt.Sprintf("index %v must be 1-D, as long as axis %d of data %v (%d)", is, ax, ds, ds[ax])})
	}
	mask := maskValues(index)
	var pieces []Tensor
	for i := 0; i < len(mask); {
		if mask[i] == 0 {
			i++
			continue
		}
		j := i
		for j < len(mask) && mask[j] != 0 {
			j++
		}
		pieces = append(pieces, f.Arange(float64(i), float64(j), 1))
		i = j
	}
	if len(pieces) == 0 {
		panic(&Error{Op: booleanMaskName, Msg: fmt.Sprintf("index selects none of the %d slices of data %v; the result would be empty", ds[ax], ds)})
	}
	idx := pieces[0]
	if len(pieces) > 1 {
		idx = f.Concat(0, pieces...)
	}
	return f.Take(data, idx, Axis(ax))
}

// maskValues reads the mask, turning the panic of a traced tensor (which
// has no values) into an error that says boolean_mask runs only eagerly.
func maskValues(index Tensor) (vals []float64) {
	defer func() {
		if r := recover(); r != nil {
			err, _ := r.(error)
			panic(&Error{Op: booleanMaskName, Err: err,
				Msg: "runs only eagerly: the result's shape depends on the mask's values, which a traced (hybridized) graph " +
					"does not have; use F.Where to keep the shape, or call it outside the hybridized part"})
		}
	}()
	return index.Float64s()
}
