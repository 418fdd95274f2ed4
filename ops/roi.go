package ops

import "math"

// Region pooling: ROIPooling, max pooling of each region of interest to a
// fixed size (Fast R-CNN's, as in Caffe and MXNet). It is an index-map op
// (gather_map.go) whose map follows the data's values: each output
// element is the maximum of its bin.

// ROIPoolingAttrs are the attributes of ROIPooling.
type ROIPoolingAttrs struct {
	PooledSize   Tuple   `attr:"pooled_size" doc:"the (height, width) each region is pooled to"`
	SpatialScale float64 `attr:"spatial_scale" doc:"the ratio of the feature map's size to the image's, by which the regions' coordinates are scaled"`
}

var opROIPooling *Op

func init() {
	opROIPooling = registerGather(gatherDef[ROIPoolingAttrs]{
		Name: "ROIPooling", Kind: "pool",
		Doc: "Max-pools each region of interest of data (N, C, H, W) to pooled_size: rois (R, 5) holds, per region, the " +
			"sample's index and the corners x1, y1, x2, y2 in image coordinates (scaled by spatial_scale and rounded). " +
			"The result is (R, C, pooled height, pooled width); an empty bin gives 0.",
		Inputs: []string{"data", "rois"},
		Check: func(a *ROIPoolingAttrs) error {
			if len(a.PooledSize) != 2 || a.PooledSize[0] < 1 || a.PooledSize[1] < 1 {
				return Errorf("pooled_size %v must be a positive (height, width)", a.PooledSize)
			}
			if a.SpatialScale <= 0 || a.SpatialScale > 1 {
				return Errorf("spatial_scale=%v must be in (0, 1]", a.SpatialScale)
			}
			return nil
		},
		Shape: func(a *ROIPoolingAttrs, in []Shape) (Shape, error) {
			d, r := in[0], in[1]
			if len(d) != 4 {
				return nil, Errorf("data %v must be 4-D (N, C, H, W)", d)
			}
			if len(r) != 2 || (r[1] != 0 && r[1] != 5) {
				return nil, Errorf("rois %v must be (R, 5): batch index, x1, y1, x2, y2", r)
			}
			return Shape{r[0], d[1], a.PooledSize[0], a.PooledSize[1]}, nil
		},
		Index: func(a *ROIPoolingAttrs, in []Value) ([]int, error) {
			d := in[0].Shape
			n, c, h, w := d[0], d[1], d[2], d[3]
			ph, pw := a.PooledSize[0], a.PooledSize[1]
			x := in[0].Float64s()
			rois := in[1].Float64s()
			nr := in[1].Shape[0]
			idx := make([]int, 0, nr*c*ph*pw)
			for r := range nr {
				roi := rois[r*5 : r*5+5]
				b := int(roi[0])
				if b < 0 || b >= n {
					return nil, Errorf("rois: region %d has batch index %v, outside data %v", r, roi[0], d)
				}
				x1, y1 := int(math.Round(roi[1]*a.SpatialScale)), int(math.Round(roi[2]*a.SpatialScale))
				x2, y2 := int(math.Round(roi[3]*a.SpatialScale)), int(math.Round(roi[4]*a.SpatialScale))
				rh, rw := max(y2-y1+1, 1), max(x2-x1+1, 1)
				bh, bw := float64(rh)/float64(ph), float64(rw)/float64(pw)
				for ch := range c {
					plane := (b*c + ch) * h * w
					for i := range ph {
						hs := min(max(int(math.Floor(float64(i)*bh))+y1, 0), h)
						he := min(max(int(math.Ceil(float64(i+1)*bh))+y1, 0), h)
						for j := range pw {
							ws := min(max(int(math.Floor(float64(j)*bw))+x1, 0), w)
							we := min(max(int(math.Ceil(float64(j+1)*bw))+x1, 0), w)
							best := -1
							for yy := hs; yy < he; yy++ {
								for xx := ws; xx < we; xx++ {
									if o := plane + yy*w + xx; best < 0 || x[o] > x[best] {
										best = o
									}
								}
							}
							idx = append(idx, best)
						}
					}
				}
			}
			return idx, nil
		},
		Samples: []Sample{
			{Attrs: map[string]string{"pooled_size": "(2, 2)", "spatial_scale": "1"}, Inputs: []Shape{{2, 2, 4, 5}, {3, 5}}, Ints: map[int]int{1: 2}},
			{Attrs: map[string]string{"pooled_size": "(1, 2)", "spatial_scale": "0.5"}, Inputs: []Shape{{1, 1, 3, 3}, {2, 5}}, Ints: map[int]int{1: 1}},
		},
		BackSamples: []Sample{
			{Attrs: map[string]string{"pooled_size": "(2, 2)", "spatial_scale": "1"}, Inputs: []Shape{{3, 2, 2, 2}, {2, 2, 4, 5}, {3, 5}}, Ints: map[int]int{2: 2}},
		},
	})
}

// ROIPooling max-pools the regions rois (R, 5) of x (N, C, H, W) to
// pooledH×pooledW, the regions' coordinates scaled by spatialScale.
func (f F) ROIPooling(x, rois Tensor, pooledH, pooledW int, spatialScale float64) Tensor {
	return f.callA(opROIPooling, &ROIPoolingAttrs{PooledSize: Tuple{pooledH, pooledW}, SpatialScale: spatialScale}, x, rois)
}
