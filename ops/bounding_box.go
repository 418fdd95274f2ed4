package ops

import "slices"

// Bounding boxes, as MXNet's contrib detection ops encode them: four
// numbers per box, either corners (xmin, ymin, xmax, ymax) or center
// and size (x, y, width, height). _contrib_box_iou gives the overlaps of
// two sets of boxes; _contrib_box_nms keeps the best-scoring boxes that
// do not overlap a better one too much.

// BoxIoUAttrs are the attributes of _contrib_box_iou.
type BoxIoUAttrs struct {
	Format string `attr:"format" default:"corner" enum:"corner,center" doc:"corner: (xmin, ymin, xmax, ymax); center: (x, y, width, height)"`
}

// BoxNMSAttrs are the attributes of _contrib_box_nms.
type BoxNMSAttrs struct {
	OverlapThresh float64 `attr:"overlap_thresh" default:"0.5" doc:"a box whose IoU with a better-scoring kept box exceeds this is suppressed"`
	ValidThresh   float64 `attr:"valid_thresh" default:"0" doc:"only boxes scoring above this take part"`
	Topk          int     `attr:"topk" default:"-1" doc:"only the topk best-scoring boxes of each batch take part; -1: all"`
	CoordStart    int     `attr:"coord_start" default:"2" doc:"the index of a box's first coordinate in its row"`
	ScoreIndex    int     `attr:"score_index" default:"1" doc:"the index of a box's score in its row"`
	IDIndex       int     `attr:"id_index" default:"-1" doc:"the index of a box's class in its row; -1: no classes"`
	BackgroundID  int     `attr:"background_id" default:"-1" doc:"boxes of this class are left out"`
	ForceSuppress bool    `attr:"force_suppress" default:"False" doc:"suppress across classes (otherwise, with id_index, only boxes of one class suppress each other)"`
	InFormat      string  `attr:"in_format" default:"corner" enum:"corner,center" doc:"the input boxes' encoding"`
	OutFormat     string  `attr:"out_format" default:"corner" enum:"corner,center" doc:"the output boxes' encoding"`
}

var opBoxIoU, opBoxNMS, opBackwardBoxNMS *Op

func init() {
	opBoxIoU = Register(Def[BoxIoUAttrs]{
		Name: "_contrib_box_iou", Kind: "other",
		Doc: "The intersection over union of each box of lhs (..., 4) with each box of rhs (..., 4): the result has " +
			"shape lhs.shape[:-1] + rhs.shape[:-1]; boxes that do not intersect give 0. MXNet defines the gradient as zero.",
		Inputs: []string{"lhs", "rhs"},
		Shape: func(_ *BoxIoUAttrs, in []Shape) ([]Shape, error) {
			for i, s := range in {
				if len(s) < 2 || (s[len(s)-1] != 0 && s[len(s)-1] != 4) {
					return nil, Errorf("%s %v must have at least 2 dims, the last of size 4", []string{"lhs", "rhs"}[i], s)
				}
			}
			l, r := in[0], in[1]
			return []Shape{append(l[:len(l)-1].Clone(), r[:len(r)-1]...)}, nil
		},
		DType: func(_ *BoxIoUAttrs, in []DType) ([]DType, error) {
			if in[0] != Unknown && in[1] != Unknown && in[0] != in[1] {
				return nil, Errorf("lhs is %v but rhs is %v", in[0], in[1])
			}
			return floatData(in[0])
		},
		Kernel: func(_ *Env, a *BoxIoUAttrs, in, out []Value) error {
			center := a.Format == "center"
			l, r := in[0].Float64s(), in[1].Float64s()
			nl, nr := len(l)/4, len(r)/4
			z := make([]float64, nl*nr)
			for i := range nl {
				for j := range nr {
					x := boxIntersect(l[4*i:], r[4*j:], center)
					if x > 0 {
						z[i*nr+j] = x / (boxArea(l[4*i:], center) + boxArea(r[4*j:], center) - x)
					}
				}
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, z))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Inputs: []Shape{{3, 4}, {2, 4}}},
			{Attrs: map[string]string{"format": "center"}, Inputs: []Shape{{2, 3, 4}, {5, 4}}, Low: 0.1, High: 1},
		},
	})

	opBoxNMS = Register(Def[BoxNMSAttrs]{
		Name: "_contrib_box_nms", Aliases: []string{"_contrib_box_non_maximum_suppression"}, Kind: "other",
		Doc: "Non-maximum suppression of the boxes of data (..., n, width), each row holding a box's score, its four " +
			"coordinates and optionally its class. In each batch, boxes scoring above valid_thresh (and not of " +
			"background_id) are sorted by descending score, the topk best kept as candidates, and each candidate " +
			"suppresses the later ones whose IoU with it exceeds overlap_thresh (of its class only, with id_index and " +
			"not force_suppress). The kept rows come first, in order of score, then rows of -1; coordinates are " +
			"converted from in_format to out_format (a row whose first coordinate is negative is left as it is, as " +
			"in MXNet). The gradient, as MXNet's, passes each kept row's ograd back to the row it came from.",
		Inputs: []string{"data"},
		Shape: func(a *BoxNMSAttrs, in []Shape) ([]Shape, error) {
			if err := a.check(in[0]); err != nil {
				return nil, err
			}
			return []Shape{in[0].Clone()}, nil
		},
		DType: func(_ *BoxNMSAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *BoxNMSAttrs, in, out []Value) error {
			s := in[0].Shape
			width := s[len(s)-1]
			x := in[0].Float64s()
			rows, convert := a.keep(x, s)
			z := make([]float64, len(x))
			for i, src := range rows {
				if src < 0 {
					for k := range width {
						z[i*width+k] = -1
					}
					continue
				}
				copy(z[i*width:(i+1)*width], x[src*width:(src+1)*width])
				if convert {
					a.convert(z[i*width+a.CoordStart : i*width+a.CoordStart+4])
				}
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, z))
			return nil
		},
		Grad: func(f F, a *BoxNMSAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opBackwardBoxNMS, a, g[0], in[0])}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 5, 6}}},
			{Attrs: map[string]string{"id_index": "0", "topk": "3", "overlap_thresh": "0.3"}, Inputs: []Shape{{6, 6}}, Low: 0, High: 2},
			{Attrs: map[string]string{"id_index": "5", "force_suppress": "True", "background_id": "1", "coord_start": "1", "score_index": "0",
				"valid_thresh": "0.2"}, Inputs: []Shape{{2, 4, 6}}, Low: 0, High: 2},
			{Attrs: map[string]string{"in_format": "center", "out_format": "corner", "coord_start": "0", "score_index": "4"},
				Inputs: []Shape{{5, 5}}, Low: 0.1, High: 1, NoGradCheck: true}, // the conversion is not differentiated, as in MXNet
			{Attrs: map[string]string{"topk": "0"}, Inputs: []Shape{{3, 6}}},
		},
	})

	opBackwardBoxNMS = Register(Def[BoxNMSAttrs]{
		Name: "_backward_contrib_box_nms", Kind: "other",
		Doc:    "The gradient of _contrib_box_nms: each kept row's ograd goes back to the row of data it came from; the other rows get 0.",
		Inputs: []string{"ograd", "data"},
		Shape: func(a *BoxNMSAttrs, in []Shape) ([]Shape, error) {
			if err := a.check(in[1]); err != nil {
				return nil, err
			}
			if err := checkOgrad(in[0], in[1], "the boxes"); err != nil {
				return nil, err
			}
			return []Shape{in[1].Clone()}, nil
		},
		DType: func(_ *BoxNMSAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *BoxNMSAttrs, in, out []Value) error {
			s := in[1].Shape
			width := s[len(s)-1]
			g := in[0].Float64s()
			rows, _ := a.keep(in[1].Float64s(), s)
			dx := make([]float64, len(g))
			for i, src := range rows {
				if src >= 0 {
					copy(dx[src*width:(src+1)*width], g[i*width:(i+1)*width])
				}
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, dx))
			return nil
		},
		Samples: []Sample{{Inputs: []Shape{{2, 5, 6}, {2, 5, 6}}}},
	})
}

// boxIntersect is the area two boxes share (0 when they do not meet).
func boxIntersect(a, b []float64, center bool) float64 {
	return boxOverlap1D(a[0], a[2], b[0], b[2], center) * boxOverlap1D(a[1], a[3], b[1], b[3], center)
}

// boxOverlap1D is the length two intervals share along one axis, each
// given as (low, high) or, with center, as (middle, length).
func boxOverlap1D(a1, a2, b1, b2 float64, center bool) float64 {
	if center {
		a1, a2 = a1-a2/2, a1+a2/2
		b1, b2 = b1-b2/2, b1+b2/2
	}
	if w := min(a2, b2) - max(a1, b1); w > 0 {
		return w
	}
	return 0
}

// boxArea is a box's area, 0 for a box of negative width or height.
func boxArea(b []float64, center bool) float64 {
	w, h := b[2], b[3]
	if !center {
		w, h = b[2]-b[0], b[3]-b[1]
	}
	if w < 0 || h < 0 {
		return 0
	}
	return w * h
}

// check is MXNet's check of box_nms's data shape against the attributes.
func (a *BoxNMSAttrs) check(s Shape) error {
	if len(s) < 2 {
		return Errorf("data %v must have at least 2 dims: (..., boxes, box width)", s)
	}
	width := s[len(s)-1]
	if width == 0 {
		return nil
	}
	want := 5
	if a.IDIndex >= 0 {
		want++
	}
	if width < want {
		return Errorf("data %v: a box's row needs at least %d elements (score, 4 coordinates%s)", s, want,
			map[bool]string{true: ", class", false: ""}[a.IDIndex >= 0])
	}
	end := a.CoordStart + 3
	switch {
	case a.CoordStart < 0 || end >= width:
		return Errorf("coordinates %d to %d are outside a row of %d", a.CoordStart, end, width)
	case a.ScoreIndex < 0 || a.ScoreIndex >= width:
		return Errorf("score_index=%d is outside a row of %d", a.ScoreIndex, width)
	case a.ScoreIndex >= a.CoordStart && a.ScoreIndex <= end:
		return Errorf("score_index=%d is among the coordinates %d to %d", a.ScoreIndex, a.CoordStart, end)
	case a.IDIndex >= width:
		return Errorf("id_index=%d is outside a row of %d", a.IDIndex, width)
	case a.IDIndex >= 0 && a.IDIndex >= a.CoordStart && a.IDIndex <= end:
		return Errorf("id_index=%d is among the coordinates %d to %d", a.IDIndex, a.CoordStart, end)
	case a.IDIndex >= 0 && a.IDIndex == a.ScoreIndex:
		return Errorf("id_index and score_index are both %d", a.IDIndex)
	}
	return nil
}

// keep runs the suppression on data of shape s: for each output row, the
// data row it takes (counting over all batches), or -1; and whether the
// kept rows' coordinates are converted.
func (a *BoxNMSAttrs) keep(x []float64, s Shape) ([]int, bool) {
	width, n := s[len(s)-1], s[len(s)-2]
	batches := s.Size() / max(width*n, 1)
	rows := make([]int, batches*n)
	topk := n
	if a.Topk >= 0 {
		topk = min(n, a.Topk)
	}
	if topk < 1 { // MXNet passes the data through unchanged
		for i := range rows {
			rows[i] = i
		}
		return rows, false
	}
	center := a.InFormat == "center"
	row := func(i int) []float64 { return x[i*width : (i+1)*width] }
	var cand []int
	var suppressed []bool
	for b := range batches {
		cand = cand[:0]
		for i := b * n; i < (b+1)*n; i++ {
			r := row(i)
			if r[a.ScoreIndex] > a.ValidThresh && (a.IDIndex < 0 || r[a.IDIndex] != float64(a.BackgroundID)) {
				cand = append(cand, i)
			}
		}
		slices.SortStableFunc(cand, func(i, j int) int {
			si, sj := row(i)[a.ScoreIndex], row(j)[a.ScoreIndex]
			switch {
			case si > sj:
				return -1
			case si < sj:
				return 1
			}
			return 0
		})
		cand = cand[:min(len(cand), topk)]
		suppressed = append(suppressed[:0], make([]bool, len(cand))...)
		for r, ref := range cand {
			if suppressed[r] {
				continue
			}
			rb := row(ref)[a.CoordStart:]
			for p := r + 1; p < len(cand); p++ {
				if suppressed[p] {
					continue
				}
				if !a.ForceSuppress && a.IDIndex >= 0 && int(row(ref)[a.IDIndex]) != int(row(cand[p])[a.IDIndex]) {
					continue
				}
				pb := row(cand[p])[a.CoordStart:]
				inter := boxIntersect(rb, pb, center)
				if iou := inter / (boxArea(rb, center) + boxArea(pb, center) - inter); iou > a.OverlapThresh {
					suppressed[p] = true
				}
			}
		}
		k := b * n
		for r, src := range cand {
			if !suppressed[r] {
				rows[k] = src
				k++
			}
		}
		for ; k < (b+1)*n; k++ {
			rows[k] = -1
		}
	}
	return rows, a.InFormat != a.OutFormat
}

// convert re-encodes a box from in_format to out_format in place; a box
// whose first number is negative is left alone, as MXNet leaves it.
func (a *BoxNMSAttrs) convert(b []float64) {
	if b[0] < 0 {
		return
	}
	if a.OutFormat == "center" {
		b[0], b[1], b[2], b[3] = (b[0]+b[2])/2, (b[1]+b[3])/2, b[2]-b[0], b[3]-b[1]
		return
	}
	w, h := b[2]/2, b[3]/2
	b[0], b[1], b[2], b[3] = b[0]-w, b[1]-h, b[0]+w, b[1]+h
}

// BoxIoU returns the intersection over union of each box of lhs with
// each box of rhs (attribute format: "corner" or "center").
func (f F) BoxIoU(lhs, rhs Tensor, attrs ...Attr) Tensor { return f.call1(opBoxIoU, attrs, lhs, rhs) }

// BoxNMS applies non-maximum suppression to the boxes of data (attributes
// overlap_thresh, valid_thresh, topk, coord_start, score_index, id_index,
// background_id, force_suppress, in_format, out_format).
func (f F) BoxNMS(data Tensor, attrs ...Attr) Tensor { return f.call1(opBoxNMS, attrs, data) }
