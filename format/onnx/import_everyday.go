package onnx

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// The imports of the ONNX ops that the more everyday ops export to
// (convert_everyday.go): InstanceNormalization, GatherND, ScatterND,
// TopK and Resize.

func instanceNormalization(b *builder) error {
	in, err := b.tensors(3)
	if err != nil {
		return err
	}
	eps := strconv.FormatFloat(float64(float32(b.attrFloat("epsilon", 1e-5))), 'g', -1, 32)
	return b.emit("InstanceNorm", map[string]string{"eps": eps}, in...)
}

// mxnetIndices turns ONNX's indices (input i, (…, M)) into MXNet's (M, …).
func (b *builder) mxnetIndices(i int) (*graph.Symbol, error) {
	x, err := b.tensor(i)
	if err != nil {
		return nil, err
	}
	s, err := b.shapeOf(i)
	if err != nil {
		return nil, err
	}
	r := len(s)
	if r < 1 {
		return nil, fmt.Errorf("indices %v must have at least 1 dim", s)
	}
	perm := make([]int64, r)
	perm[0] = int64(r - 1)
	for d := 1; d < r; d++ {
		perm[d] = int64(d - 1)
	}
	return b.apply(b.name()+"_indices", "transpose", map[string]string{"axes": tuple(perm)}, x)
}

// scatterNDOp converts a ScatterND into a constant of zeros, which is
// MXNet's scatter_nd.
func scatterNDOp(b *builder) error {
	if r := b.attrString("reduction", "none"); r != "none" {
		return fmt.Errorf("reduction=%s is not supported (none is)", r)
	}
	v, err := b.get(0)
	if err != nil {
		return err
	}
	if v == nil || v.konst == nil || slices.ContainsFunc(v.konst.Float64s(), func(x float64) bool { return x != 0 }) {
		return fmt.Errorf("only a ScatterND into a constant of zeros converts (MXNet's scatter_nd)")
	}
	idx, err := b.mxnetIndices(1)
	if err != nil {
		return err
	}
	updates, err := b.tensor(2)
	if err != nil {
		return err
	}
	return b.emit("scatter_nd", map[string]string{"shape": tuple([]int(v.konst.Shape()))}, updates, idx)
}

// gatherNDOp turns ONNX's indices (…, M), each coordinate tuple on the
// last axis, into MXNet's (M, …).
func gatherNDOp(b *builder) error {
	if bd := b.attrInt("batch_dims", 0); bd != 0 {
		return fmt.Errorf("batch_dims=%d is not supported (0 is)", bd)
	}
	x, err := b.tensor(0)
	if err != nil {
		return err
	}
	idx, err := b.mxnetIndices(1)
	if err != nil {
		return err
	}
	return b.emit("gather_nd", nil, x, idx)
}

// topKOp converts TopK into topk with ret_typ both, its indices int64 as
// ONNX's (a sorted result is a valid one where sorted=0 leaves the
// order open).
func topKOp(b *builder) error {
	x, err := b.tensor(0)
	if err != nil {
		return err
	}
	k, err := b.ints(1)
	if err != nil {
		return err
	}
	if len(k) != 1 || k[0] < 1 {
		return fmt.Errorf("the count K %v must be one positive number", k)
	}
	op, _ := ops.Lookup("topk")
	a, err := op.ParseAttrs(map[string]string{"k": fmt.Sprint(k[0]), "axis": fmt.Sprint(b.attrInt("axis", -1)),
		"ret_typ": "both", "is_ascend": boolean(b.attrInt("largest", 1) == 0), "dtype": "int64"})
	if err != nil {
		return err
	}
	b.t.NameNext(b.fresh(b.name()))
	ys, err := b.t.Apply(op, a, []ops.Tensor{x})
	if err != nil {
		return err
	}
	for i, o := range b.node.Outputs {
		if o == "" || i > 1 {
			continue
		}
		if _, dup := b.values[o]; dup {
			return fmt.Errorf("output %q is also the output of another node", o)
		}
		b.set(o, &value{sym: ys[i].(*graph.Symbol)})
	}
	return nil
}

// resizeOp converts a Resize of the height and width of 4-D data: mode
// nearest by an integer scale (asymmetric, floor) to UpSampling, mode
// linear (align_corners, or pytorch_half_pixel and half_pixel, which
// agree with MXNet's when the result is more than one pixel) to
// _contrib_BilinearResize2D.
func resizeOp(b *builder) error {
	x, err := b.tensor(0)
	if err != nil {
		return err
	}
	shape, err := b.shapeOf(0)
	if err != nil {
		return err
	}
	if len(shape) != 4 {
		return fmt.Errorf("only the Resize of 4-D data (N, C, H, W) converts, not of %v", shape)
	}
	h, w := shape[2], shape[3]
	var oh, ow int
	if v, _ := b.get(3); v != nil {
		dims, err := b.dimsOf(3)
		if err != nil {
			return err
		}
		if len(dims) != 4 || dims[2].dynamic || dims[3].dynamic {
			return fmt.Errorf("sizes must give a fixed height and width")
		}
		oh, ow = dims[2].size, dims[3].size
	} else {
		v, _ := b.get(2)
		if v == nil || v.konst == nil || v.konst.Size() != 4 {
			return fmt.Errorf("scales must be a constant of 4 values (or sizes given)")
		}
		sc := v.konst.Float64s()
		if sc[0] != 1 || sc[1] != 1 {
			return fmt.Errorf("scales %v: only the height and width may be resized", sc)
		}
		oh, ow = int(math.Floor(float64(h)*sc[2])), int(math.Floor(float64(w)*sc[3]))
	}
	ctm := b.attrString("coordinate_transformation_mode", "half_pixel")
	switch mode := b.attrString("mode", "nearest"); mode {
	case "nearest":
		nm := b.attrString("nearest_mode", "round_prefer_floor")
		scale := oh / max(h, 1)
		if ctm != "asymmetric" || oh != scale*h || ow != scale*w || scale < 1 || (nm != "floor" && !(nm == "round_prefer_floor" && scale <= 2)) {
			return fmt.Errorf("mode nearest converts only for an integer scale, the same for height and width, with coordinate_transformation_mode asymmetric and nearest_mode floor")
		}
		return b.emit("UpSampling", map[string]string{"scale": fmt.Sprint(scale), "sample_type": "nearest", "num_args": "1"}, x)
	case "linear":
		align := "True"
		switch ctm {
		case "align_corners":
		case "pytorch_half_pixel", "half_pixel":
			align = "False"
		default:
			return fmt.Errorf("coordinate_transformation_mode=%s is not supported with mode linear (align_corners, pytorch_half_pixel and half_pixel are)", ctm)
		}
		return b.emit("_contrib_BilinearResize2D", map[string]string{"height": fmt.Sprint(oh), "width": fmt.Sprint(ow), "align_corners": align}, x)
	default:
		return fmt.Errorf("mode=%s is not supported (nearest and linear are)", mode)
	}
}
