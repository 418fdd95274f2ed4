package ops

import "math"

// Region pooling: ROIPooling, max pooling of each region of interest to a
// fixed size (Fast R-CNN's, as in Caffe and MXNet). It is an index-map op
// (gather_map.go) whose map follows the data's values: each output
// element is the maximum of its bin. _contrib_ROIAlign (Mask R-CNN's)
// averages bilinear samples of each bin instead; it is linear in the data,
// and its gradient _backward_ROIAlign spreads ograd back by the same
// weights.

// ROIPoolingAttrs are the attributes of ROIPooling.
type ROIPoolingAttrs struct {
	PooledSize   Tuple   `attr:"pooled_size" doc:"the (height, width) each region is pooled to"`
	SpatialScale float64 `attr:"spatial_scale" doc:"the ratio of the feature map's size to the image's, by which the regions' coordinates are scaled"`
}

// ROIAlignAttrs are the attributes of _contrib_ROIAlign.
type ROIAlignAttrs struct {
	PooledSize        Tuple   `attr:"pooled_size" doc:"the (height, width) each region is pooled to"`
	SpatialScale      float64 `attr:"spatial_scale" doc:"the ratio of the feature map's size to the image's, by which the regions' coordinates are scaled"`
	SampleRatio       int     `attr:"sample_ratio" default:"-1" doc:"bilinear samples per bin along each axis; <= 0: ceil(region size / pooled size)"`
	PositionSensitive bool    `attr:"position_sensitive" default:"False" doc:"R-FCN's position-sensitive pooling: output channel c of bin (i, j) reads input channel (c·ph + i)·pw + j"`
	Aligned           bool    `attr:"aligned" default:"False" doc:"Detectron2's center alignment: shift the scaled coordinates by -0.5 pixel (regions must then have positive size)"`
}

var opROIPooling, opROIAlign, opBackwardROIAlign *Op

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

	opROIAlign = Register(Def[ROIAlignAttrs]{
		Name: "_contrib_ROIAlign", Kind: "pool",
		Doc: "Pools each region of interest of data (N, C, H, W) to pooled_size by averaging bilinear samples of each " +
			"bin (Mask R-CNN's RoIAlign): rois (R, 5) holds, per region, the sample's index and the corners x1, y1, " +
			"x2, y2 in image coordinates, scaled by spatial_scale and not rounded. The result is (R, C, pooled height, " +
			"pooled width) (C / (ph·pw) channels when position_sensitive); a region with a negative batch index gives " +
			"0. The rois get no gradient, as in MXNet.",
		Inputs: []string{"data", "rois"},
		Check:  roiAlignCheck,
		Shape: func(a *ROIAlignAttrs, in []Shape) ([]Shape, error) {
			s, err := a.shape(in[0], in[1])
			return []Shape{s}, err
		},
		DType: func(_ *ROIAlignAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *ROIAlignAttrs, in, out []Value) error {
			x := in[0].Float64s()
			y := make([]float64, out[0].Shape.Size())
			if err := a.taps(in[0].Shape, in[1].Float64s(), func(o, i int, w float64) { y[o] += w * x[i] }); err != nil {
				return err
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, y))
			return nil
		},
		Grad: func(f F, a *ROIAlignAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opBackwardROIAlign, a, g[0], in[0], in[1]), nil}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"pooled_size": "(2, 2)", "spatial_scale": "1"}, Inputs: []Shape{{4, 2, 5, 5}, {3, 5}}, Ints: map[int]int{1: 4}},
			{Attrs: map[string]string{"pooled_size": "(2, 3)", "spatial_scale": "0.5", "sample_ratio": "2"}, Inputs: []Shape{{4, 1, 3, 4}, {2, 5}}, Ints: map[int]int{1: 4}},
			{Attrs: map[string]string{"pooled_size": "(2, 2)", "spatial_scale": "1", "position_sensitive": "True"}, Inputs: []Shape{{4, 8, 4, 4}, {2, 5}}, Ints: map[int]int{1: 4}},
		},
	})

	opBackwardROIAlign = Register(Def[ROIAlignAttrs]{
		Name: "_backward_ROIAlign", Kind: "pool",
		Doc:    "The gradient of _contrib_ROIAlign with respect to its data: ograd spread back over the pixels each bin sampled, by the sampling weights.",
		Inputs: []string{"ograd", "data", "rois"},
		Check:  roiAlignCheck,
		Shape: func(a *ROIAlignAttrs, in []Shape) ([]Shape, error) {
			want, err := a.shape(in[1], in[2])
			if err != nil {
				return nil, err
			}
			if err := checkOgrad(in[0], want, "_contrib_ROIAlign's result"); err != nil {
				return nil, err
			}
			return []Shape{in[1].Clone()}, nil
		},
		DType: func(_ *ROIAlignAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *ROIAlignAttrs, in, out []Value) error {
			g := in[0].Float64s()
			dx := make([]float64, out[0].Shape.Size())
			if err := a.taps(in[1].Shape, in[2].Float64s(), func(o, i int, w float64) { dx[i] += w * g[o] }); err != nil {
				return err
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, dx))
			return nil
		},
		Grad: func(f F, a *ROIAlignAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opROIAlign, a, g[0], in[2]), nil, nil}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"pooled_size": "(2, 2)", "spatial_scale": "1"}, Inputs: []Shape{{3, 2, 2, 2}, {4, 2, 5, 5}, {3, 5}}, Ints: map[int]int{2: 4}},
		},
	})
}

// roiAlignCheck validates ROIAlign's attributes.
func roiAlignCheck(a *ROIAlignAttrs) error {
	if len(a.PooledSize) != 2 || a.PooledSize[0] < 1 || a.PooledSize[1] < 1 {
		return Errorf("pooled_size %v must be a positive (height, width)", a.PooledSize)
	}
	if a.SpatialScale < 0 || a.SpatialScale > 1 {
		return Errorf("spatial_scale=%v must be in [0, 1]", a.SpatialScale)
	}
	return nil
}

// shape is ROIAlign's output shape for data (N, C, H, W) and rois (R, 5).
func (a *ROIAlignAttrs) shape(d, r Shape) (Shape, error) {
	if len(d) != 4 {
		return nil, Errorf("data %v must be 4-D (N, C, H, W)", d)
	}
	if len(r) != 2 || (r[1] != 0 && r[1] != 5) {
		return nil, Errorf("rois %v must be (R, 5): batch index, x1, y1, x2, y2", r)
	}
	c := d[1]
	if a.PositionSensitive {
		bins := a.PooledSize[0] * a.PooledSize[1]
		if c%bins != 0 {
			return nil, Errorf("data's %d channels must divide by the %d bins of pooled_size %v when position_sensitive", c, bins, a.PooledSize)
		}
		c /= bins
	}
	return Shape{r[0], c, a.PooledSize[0], a.PooledSize[1]}, nil
}

// taps calls tap(o, i, w) for each bilinear sample weight w by which data
// element i enters output element o. A region with a negative batch index
// has no taps (its output is 0).
func (a *ROIAlignAttrs) taps(data Shape, rois []float64, tap func(o, i int, w float64)) error {
	n, c, h, w := data[0], data[1], data[2], data[3]
	ph, pw := a.PooledSize[0], a.PooledSize[1]
	co := c
	if a.PositionSensitive {
		co = c / (ph * pw)
	}
	offset := 0.0
	if a.Aligned {
		offset = 0.5
	}
	for r := 0; r*5 < len(rois); r++ {
		roi := rois[r*5 : r*5+5]
		b := int(roi[0])
		if b < 0 {
			continue
		}
		if b >= n {
			return Errorf("rois: region %d has batch index %v, outside data %v", r, roi[0], data)
		}
		x0, y0 := roi[1]*a.SpatialScale-offset, roi[2]*a.SpatialScale-offset
		rw, rh := roi[3]*a.SpatialScale-offset-x0, roi[4]*a.SpatialScale-offset-y0
		if a.Aligned {
			if !(rw > 0 && rh > 0) {
				return Errorf("rois: region %d (%v) must have a positive size when aligned", r, roi[1:])
			}
		} else {
			rw, rh = max(rw, 1), max(rh, 1)
		}
		bh, bw := rh/float64(ph), rw/float64(pw)
		gh, gw := a.SampleRatio, a.SampleRatio
		if a.SampleRatio <= 0 {
			gh, gw = int(math.Ceil(rh/float64(ph))), int(math.Ceil(rw/float64(pw)))
		}
		count := float64(gh * gw)
		for ch := range co {
			for i := range ph {
				for j := range pw {
					o := ((r*co+ch)*ph+i)*pw + j
					cin := ch
					if a.PositionSensitive {
						cin = (ch*ph+i)*pw + j
					}
					plane := (b*c + cin) * h * w
					for iy := range gh {
						y := y0 + float64(i)*bh + (float64(iy)+0.5)*bh/float64(gh)
						for ix := range gw {
							x := x0 + float64(j)*bw + (float64(ix)+0.5)*bw/float64(gw)
							roiBilinearTaps(y, x, h, w, func(k int, wt float64) { tap(o, plane+k, wt/count) })
						}
					}
				}
			}
		}
	}
	return nil
}

// roiBilinearTaps calls tap for the (up to) four pixels of an h×w plane that
// a bilinear sample at (y, x) reads, with their weights, as MXNet's
// ROIAlign samples: nothing outside [-1, h]×[-1, w], the edges clamped.
func roiBilinearTaps(y, x float64, h, w int, tap func(k int, wt float64)) {
	if y < -1 || y > float64(h) || x < -1 || x > float64(w) {
		return
	}
	y, x = max(y, 0), max(x, 0)
	yl, xl := int(y), int(x)
	yh, xh := yl+1, xl+1
	if yl >= h-1 {
		yl, yh, y = h-1, h-1, float64(h-1)
	}
	if xl >= w-1 {
		xl, xh, x = w-1, w-1, float64(w-1)
	}
	ly, lx := y-float64(yl), x-float64(xl)
	hy, hx := 1-ly, 1-lx
	tap(yl*w+xl, hy*hx)
	tap(yl*w+xh, hy*lx)
	tap(yh*w+xl, ly*hx)
	tap(yh*w+xh, ly*lx)
}

// ROIAlign averages bilinear samples of each region rois (R, 5) of x
// (N, C, H, W) over pooledH×pooledW bins (attributes sample_ratio,
// position_sensitive, aligned).
func (f F) ROIAlign(x, rois Tensor, pooledH, pooledW int, spatialScale float64, attrs ...Attr) Tensor {
	all := append([]Attr{{"pooled_size", Tuple{pooledH, pooledW}}, {"spatial_scale", spatialScale}}, attrs...)
	return f.call1(opROIAlign, all, x, rois)
}

// ROIPooling max-pools the regions rois (R, 5) of x (N, C, H, W) to
// pooledH×pooledW, the regions' coordinates scaled by spatialScale.
func (f F) ROIPooling(x, rois Tensor, pooledH, pooledW int, spatialScale float64) Tensor {
	return f.callA(opROIPooling, &ROIPoolingAttrs{PooledSize: Tuple{pooledH, pooledW}, SpatialScale: spatialScale}, x, rois)
}
