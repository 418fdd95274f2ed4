package onnx

import (
	"fmt"
	"strconv"
)

// The imports of the ONNX ops that the more everyday ops export to
// (convert_everyday.go): InstanceNormalization and GatherND.

func instanceNormalization(b *builder) error {
	in, err := b.tensors(3)
	if err != nil {
		return err
	}
	eps := strconv.FormatFloat(float64(float32(b.attrFloat("epsilon", 1e-5))), 'g', -1, 32)
	return b.emit("InstanceNorm", map[string]string{"eps": eps}, in...)
}

// gatherNDOp turns ONNX's indices (…, M), each coordinate tuple on the
// last axis, into MXNet's (M, …).
func gatherNDOp(b *builder) error {
	if bd := b.attrInt("batch_dims", 0); bd != 0 {
		return fmt.Errorf("batch_dims=%d is not supported (0 is)", bd)
	}
	in, err := b.tensors(2)
	if err != nil {
		return err
	}
	s, err := b.shapeOf(1)
	if err != nil {
		return err
	}
	r := len(s)
	if r < 1 {
		return fmt.Errorf("indices %v must have at least 1 dim", s)
	}
	perm := make([]int64, r)
	perm[0] = int64(r - 1)
	for i := 1; i < r; i++ {
		perm[i] = int64(i - 1)
	}
	idx, err := b.apply(b.name()+"_indices", "transpose", map[string]string{"axes": tuple(perm)}, in[1])
	if err != nil {
		return err
	}
	return b.emit("gather_nd", nil, in[0], idx)
}
