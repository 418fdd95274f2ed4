package ops

import (
	"math"
	"sort"
)

// Single-shot detection (SSD) and its box helpers: _contrib_MultiBoxPrior
// makes the anchor boxes of a feature map, _contrib_MultiBoxDetection
// turns class probabilities and box offsets into detections with
// non-maximum suppression, _contrib_box_encode and _contrib_box_decode
// convert between boxes and offsets from anchors, and
// _contrib_bipartite_matching pairs rows with columns greedily by score.
// As in MXNet none of them passes a gradient (their gradients are 0).
// Boxes are corners (xmin, ymin, xmax, ymax) unless a format says center.

// MultiBoxPriorAttrs are the attributes of _contrib_MultiBoxPrior.
type MultiBoxPriorAttrs struct {
	Sizes   string `attr:"sizes" default:"(1,)" doc:"the anchors' sizes, as fractions of the image"`
	Ratios  string `attr:"ratios" default:"(1,)" doc:"the anchors' aspect ratios (width / height)"`
	Clip    bool   `attr:"clip" default:"False" doc:"clip the anchors to [0, 1]"`
	Steps   string `attr:"steps" default:"(-1, -1)" doc:"(step y, step x) between anchor centres, in image fractions; -1: one feature-map cell"`
	Offsets string `attr:"offsets" default:"(0.5, 0.5)" doc:"(y, x) offset of a centre within its cell, in cells"`
}

// MultiBoxDetectionAttrs are the attributes of _contrib_MultiBoxDetection.
type MultiBoxDetectionAttrs struct {
	Clip          bool    `attr:"clip" default:"True" doc:"clip the boxes to [0, 1]"`
	Threshold     float64 `attr:"threshold" default:"0.01" doc:"the least probability of a detection"`
	BackgroundID  int     `attr:"background_id" default:"0" doc:"the background class; class 0 is the background, as in MXNet's kernel"`
	NMSThreshold  float64 `attr:"nms_threshold" default:"0.5" doc:"the overlap (IoU) at which the weaker of two detections is suppressed; outside (0, 1]: no suppression"`
	ForceSuppress bool    `attr:"force_suppress" default:"False" doc:"suppress overlapping detections of different classes too"`
	Variances     string  `attr:"variances" default:"(0.1, 0.1, 0.2, 0.2)" doc:"the scales of the offsets (x, y, w, h)"`
	NMSTopK       int     `attr:"nms_topk" default:"-1" doc:"keep at most this many detections before suppression; -1: all"`
}

// BoxDecodeAttrs are the attributes of _contrib_box_decode.
type BoxDecodeAttrs struct {
	Std0   float64 `attr:"std0" default:"1" doc:"the scale of the x offsets"`
	Std1   float64 `attr:"std1" default:"1" doc:"the scale of the y offsets"`
	Std2   float64 `attr:"std2" default:"1" doc:"the scale of the log width offsets"`
	Std3   float64 `attr:"std3" default:"1" doc:"the scale of the log height offsets"`
	Clip   float64 `attr:"clip" default:"-1" doc:"when positive, the log size offsets are clipped to it"`
	Format string  `attr:"format" default:"center" enum:"corner,center" doc:"the anchors' encoding: corner (xmin, ymin, xmax, ymax) or center (x, y, width, height)"`
}

// BipartiteMatchingAttrs are the attributes of _contrib_bipartite_matching.
type BipartiteMatchingAttrs struct {
	IsAscend  bool    `attr:"is_ascend" default:"False" doc:"match the lowest scores first (threshold is then an upper bound)"`
	Threshold float64 `attr:"threshold" doc:"the scores that may match: above it (below it with is_ascend)"`
	TopK      int     `attr:"topk" default:"-1" doc:"stop after this many matches (MXNet's kernel makes one more); -1: no limit"`
}

// MultiBoxTargetAttrs are the attributes of _contrib_MultiBoxTarget.
type MultiBoxTargetAttrs struct {
	OverlapThreshold       float64 `attr:"overlap_threshold" default:"0.5" doc:"the overlap (IoU) above which an anchor matches a box"`
	IgnoreLabel            float64 `attr:"ignore_label" default:"-1" doc:"the class target of anchors neither positive nor negative"`
	NegativeMiningRatio    float64 `attr:"negative_mining_ratio" default:"-1" doc:"negatives per positive, the hardest chosen; <= 0: every anchor not positive is negative"`
	NegativeMiningThresh   float64 `attr:"negative_mining_thresh" default:"0.5" doc:"the overlap below which an anchor may be mined as negative"`
	MinimumNegativeSamples int     `attr:"minimum_negative_samples" default:"0" doc:"accepted; unused, as in MXNet's kernel"`
	Variances              string  `attr:"variances" default:"(0.1, 0.1, 0.2, 0.2)" doc:"the scales the offsets are divided by (x, y, w, h)"`
}

var opMultiBoxPrior, opMultiBoxDetection, opMultiBoxTarget, opBoxEncode, opBoxDecode, opBipartiteMatching *Op

func init() {
	opMultiBoxPrior = Register(Def[MultiBoxPriorAttrs]{
		Name: "_contrib_MultiBoxPrior", Kind: "other",
		Doc: "The anchor boxes of an SSD feature map data (N, C, H, W): at each cell's centre, one box per size " +
			"with the first ratio and one per further ratio with the first size, widths scaled by H/W. The result " +
			"(1, H·W·(sizes + ratios - 1), 4) holds corners in image fractions.",
		Inputs: []string{"data"},
		Check: func(a *MultiBoxPriorAttrs) error {
			_, _, steps, offsets, err := a.values()
			if err != nil {
				return err
			}
			if steps[0]*steps[1] < 0 {
				return Errorf("steps %v: give both steps or neither", a.Steps)
			}
			for _, o := range offsets {
				if o < 0 || o > 1 {
					return Errorf("offsets %v must be in [0, 1]", a.Offsets)
				}
			}
			return nil
		},
		Shape: func(a *MultiBoxPriorAttrs, in []Shape) ([]Shape, error) {
			d := in[0]
			if len(d) < 4 {
				return nil, Errorf("data %v must be 4-D (N, C, H, W)", d)
			}
			sizes, ratios, _, _, _ := a.values()
			return []Shape{{1, d[2] * d[3] * (len(sizes) + len(ratios) - 1), 4}}, nil
		},
		DType: func(_ *MultiBoxPriorAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *MultiBoxPriorAttrs, in, out []Value) error {
			sizes, ratios, steps, offsets, _ := a.values()
			h, w := in[0].Shape[2], in[0].Shape[3]
			if steps[0] <= 0 || steps[1] <= 0 {
				steps = []float64{1 / float64(h), 1 / float64(w)}
			}
			y := make([]float64, 0, out[0].Shape.Size())
			box := func(cx, cy, size, ratio float64) {
				bw, bh := size*float64(h)/float64(w)*ratio/2, size/ratio/2
				b := []float64{cx - bw, cy - bh, cx + bw, cy + bh}
				if a.Clip {
					for i := range b {
						b[i] = min(max(b[i], 0), 1)
					}
				}
				y = append(y, b...)
			}
			for r := range h {
				cy := (float64(r) + offsets[0]) * steps[0]
				for c := range w {
					cx := (float64(c) + offsets[1]) * steps[1]
					for _, s := range sizes {
						box(cx, cy, s, math.Sqrt(ratios[0]))
					}
					for _, q := range ratios[1:] {
						box(cx, cy, sizes[0], math.Sqrt(q))
					}
				}
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, y))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Inputs: []Shape{{1, 3, 2, 3}}},
			{Attrs: map[string]string{"sizes": "(0.5, 0.25)", "ratios": "(1, 2, 0.5)", "clip": "True"}, Inputs: []Shape{{2, 1, 3, 3}}},
			{Attrs: map[string]string{"sizes": "(0.3,)", "steps": "(0.25, 0.2)", "offsets": "(0.2, 0.7)"}, Inputs: []Shape{{1, 1, 4, 5}}},
		},
	})

	opMultiBoxDetection = Register(Def[MultiBoxDetectionAttrs]{
		Name: "_contrib_MultiBoxDetection", Kind: "other",
		Doc: "SSD's detections from cls_prob (N, classes, anchors), loc_pred (N, anchors·4) and anchor (1, anchors, 4): " +
			"each anchor takes its most probable class other than the background (class 0), kept when its " +
			"probability reaches threshold, and its box is the anchor moved by the offsets (scaled by variances). " +
			"The kept detections are sorted by probability (the nms_topk best kept) and a detection overlapping a " +
			"stronger one of its class (any class with force_suppress) by nms_threshold or more gets class -1. The " +
			"result (N, anchors, 6) holds rows (class - 1, probability, xmin, ymin, xmax, ymax), the rest -1.",
		Inputs: []string{"cls_prob", "loc_pred", "anchor"},
		Check: func(a *MultiBoxDetectionAttrs) error {
			v, err := parseFloatList("variances", a.Variances)
			if err == nil && len(v) != 4 {
				err = Errorf("variances %v must have 4 values", a.Variances)
			}
			return err
		},
		Shape: func(_ *MultiBoxDetectionAttrs, in []Shape) ([]Shape, error) {
			c, l, an := in[0], in[1], in[2]
			if len(c) != 3 || len(l) != 2 || len(an) != 3 {
				return nil, Errorf("cls_prob %v, loc_pred %v and anchor %v must be (N, classes, anchors), (N, anchors·4) and (1, anchors, 4)", c, l, an)
			}
			if an[2] != 4 || (c[2] != 0 && an[1] != 0 && c[2] != an[1]) || (c[2] != 0 && l[1] != 0 && l[1] != 4*c[2]) {
				return nil, Errorf("cls_prob %v, loc_pred %v and anchor %v disagree on the number of anchors", c, l, an)
			}
			return []Shape{{c[0], an[1], 6}}, nil
		},
		DType: func(_ *MultiBoxDetectionAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *MultiBoxDetectionAttrs, in, out []Value) error {
			v, _ := parseFloatList("variances", a.Variances)
			y := multiBoxDetect(a, v, in[0].Shape, in[0].Float64s(), in[1].Float64s(), in[2].Float64s())
			CopyData(out[0].Data, FromFloat64s(out[0].DType, y))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Inputs: []Shape{{2, 3, 6}, {2, 24}, {1, 6, 4}}, Low: 0, High: 1},
			{Attrs: map[string]string{"force_suppress": "True", "nms_topk": "3", "threshold": "0.3", "clip": "False"}, Inputs: []Shape{{1, 4, 8}, {1, 32}, {1, 8, 4}}, Low: 0, High: 1},
		},
	})

	opMultiBoxTarget = Register(Def[MultiBoxTargetAttrs]{
		Name: "_contrib_MultiBoxTarget", Aliases: []string{"_npx_multibox_target"}, Kind: "other",
		Doc: "SSD's training targets from anchor (1, anchors, 4), label (N, boxes, 5 or more: class, xmin, ymin, xmax, " +
			"ymax, a row of -1 ending the boxes) and cls_pred (N, classes, anchors). Each box first takes its best " +
			"overlapping anchor, then each anchor overlapping a box by more than overlap_threshold takes it; those " +
			"anchors are positive. With negative_mining_ratio > 0 the anchors of least background probability " +
			"(softmax of cls_pred) among those overlapping below negative_mining_thresh are negative, ratio per " +
			"positive; otherwise every other anchor is. The outputs are loc_target (N, anchors·4), the positive " +
			"anchors' box offsets divided by variances, loc_mask (N, anchors·4), 1 for positives, and cls_target " +
			"(N, anchors): class + 1 for positives, 0 for negatives, ignore_label for the rest.",
		Inputs: []string{"anchor", "label", "cls_pred"}, Outputs: 3,
		Check: func(a *MultiBoxTargetAttrs) error {
			v, err := parseFloatList("variances", a.Variances)
			if err == nil && len(v) != 4 {
				err = Errorf("variances %v must have 4 values", a.Variances)
			}
			if err == nil && a.NegativeMiningRatio > 0 && a.NegativeMiningThresh <= 0 {
				err = Errorf("negative_mining_thresh=%v must be positive with negative mining", a.NegativeMiningThresh)
			}
			return err
		},
		Shape: func(_ *MultiBoxTargetAttrs, in []Shape) ([]Shape, error) {
			an, l, p := in[0], in[1], in[2]
			if len(an) != 3 || (an[0] != 0 && an[0] != 1) || an[2] != 4 {
				return nil, Errorf("anchor %v must be (1, anchors, 4)", an)
			}
			if len(l) != 3 || (l[2] != 0 && l[2] < 5) {
				return nil, Errorf("label %v must be (N, boxes, 5 or more)", l)
			}
			if len(p) != 3 || (p[2] != 0 && an[1] != 0 && p[2] != an[1]) {
				return nil, Errorf("cls_pred %v must be (N, classes, anchors) for anchor %v", p, an)
			}
			n, na := max(l[0], p[0]), an[1]
			return []Shape{{n, na * 4}, {n, na * 4}, {n, na}}, nil
		},
		DType: func(_ *MultiBoxTargetAttrs, in []DType) ([]DType, error) {
			d, err := floatData(in[0])
			if err != nil {
				return nil, err
			}
			return []DType{d[0], d[0], d[0]}, nil
		},
		Kernel: func(_ *Env, a *MultiBoxTargetAttrs, in, out []Value) error {
			lt, lm, ct := multiBoxTarget(a, in[0].Float64s(), in[1].Shape, in[1].Float64s(), in[2].Shape, in[2].Float64s())
			CopyData(out[0].Data, FromFloat64s(out[0].DType, lt))
			CopyData(out[1].Data, FromFloat64s(out[1].DType, lm))
			CopyData(out[2].Data, FromFloat64s(out[2].DType, ct))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Inputs: []Shape{{1, 6, 4}, {2, 2, 5}, {2, 3, 6}}, Low: 0, High: 1},
			{Attrs: map[string]string{"negative_mining_ratio": "2", "negative_mining_thresh": "0.9", "overlap_threshold": "0.1"},
				Inputs: []Shape{{1, 8, 4}, {1, 3, 6}, {1, 2, 8}}, Low: 0, High: 1},
		},
	})

	opBoxEncode = Register(Def[NoAttrs]{
		Name: "_contrib_box_encode", Kind: "other",
		Doc: "Encodes each anchor's matched reference box as offsets: samples (B, N) marks the positive anchors " +
			"(> 0.5), matches (B, N) gives each anchor's reference in refs (B, M, 4), anchors (B, N, 4); the targets " +
			"((x - ax)/aw, (y - ay)/ah, log(w/aw), log(h/ah)) of centres and sizes, less means (4) and divided by " +
			"stds (4), are the first output (B, N, 4), 0 for anchors not positive; the second is the mask (1 where " +
			"positive).",
		Inputs: []string{"samples", "matches", "anchors", "refs", "means", "stds"}, Outputs: 2,
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			s, m, an, r := in[0], in[1], in[2], in[3]
			if len(s) != 2 || len(m) != 2 || len(an) != 3 || an[2] != 4 || len(r) != 3 || r[2] != 4 {
				return nil, Errorf("samples %v, matches %v, anchors %v and refs %v must be (B, N), (B, N), (B, N, 4) and (B, M, 4)", s, m, an, r)
			}
			for i := 4; i < 6; i++ {
				if len(in[i]) == 0 {
					in[i] = Shape{4}
				}
				if len(in[i]) != 1 || (in[i][0] != 0 && in[i][0] != 4) {
					return nil, Errorf("%s %v must hold 4 values", []string{"means", "stds"}[i-4], in[i])
				}
				in[i][0] = 4
			}
			return []Shape{an.Clone(), an.Clone()}, nil
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			samples, matches, anchors, refs := in[0].Float64s(), in[1].Float64s(), in[2].Float64s(), in[3].Float64s()
			means, stds := in[4].Float64s(), in[5].Float64s()
			n, m := in[2].Shape[1], in[3].Shape[1]
			t := make([]float64, len(anchors))
			mask := make([]float64, len(anchors))
			for i := range samples {
				if samples[i] <= 0.5 {
					continue
				}
				j := int(matches[i])
				if j < 0 || j >= m {
					return Errorf("matches[%d]=%v is not a reference in refs %v", i, matches[i], in[3].Shape)
				}
				ax, ay, aw, ah := boxCenter(anchors[i*4 : i*4+4])
				rx, ry, rw, rh := boxCenter(refs[((i/n)*m+j)*4 : ((i/n)*m+j)*4+4])
				enc := [4]float64{(rx - ax) / aw, (ry - ay) / ah, math.Log(rw / aw), math.Log(rh / ah)}
				for k := range 4 {
					t[i*4+k] = (enc[k] - means[k]) / stds[k]
					mask[i*4+k] = 1
				}
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, t))
			CopyData(out[1].Data, FromFloat64s(out[1].DType, mask))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}, {2, 3}, {2, 3, 4}, {2, 2, 4}, {4}, {4}}, Ints: map[int]int{1: 2}, Low: 0.1, High: 1},
		},
	})

	opBoxDecode = Register(Def[BoxDecodeAttrs]{
		Name: "_contrib_box_decode", Kind: "other",
		Doc: "Decodes offsets data (B, N, 4) from anchors (1, N, 4) into corner boxes (B, N, 4): the centre moves by " +
			"(data0·std0·aw, data1·std1·ah) and the size scales by exp(data2·std2), exp(data3·std3) (each at most " +
			"clip before exp when clip > 0).",
		Inputs: []string{"data", "anchors"},
		Shape: func(_ *BoxDecodeAttrs, in []Shape) ([]Shape, error) {
			d, an := in[0], in[1]
			if len(d) != 3 || d[2] != 4 || len(an) != 3 || an[2] != 4 {
				return nil, Errorf("data %v and anchors %v must be (B, N, 4) and (1, N, 4)", d, an)
			}
			if d[1] != 0 && an[1] != 0 && d[1] != an[1] {
				return nil, Errorf("data %v and anchors %v differ in the number of boxes", d, an)
			}
			return []Shape{d.Clone()}, nil
		},
		Kernel: func(_ *Env, a *BoxDecodeAttrs, in, out []Value) error {
			x, anchors := in[0].Float64s(), in[1].Float64s()
			n := in[0].Shape[1]
			y := make([]float64, len(x))
			for i := 0; i*4 < len(x); i++ {
				an := anchors[(i%n)*4 : (i%n)*4+4]
				ax, ay, aw, ah := an[0], an[1], an[2], an[3]
				if a.Format == "corner" {
					ax, ay, aw, ah = boxCenter(an)
				}
				dw, dh := x[i*4+2]*a.Std2, x[i*4+3]*a.Std3
				if a.Clip > 0 {
					dw, dh = min(dw, a.Clip), min(dh, a.Clip)
				}
				ox, oy := x[i*4]*a.Std0*aw+ax, x[i*4+1]*a.Std1*ah+ay
				ow, oh := math.Exp(dw)*aw/2, math.Exp(dh)*ah/2
				copy(y[i*4:], []float64{ox - ow, oy - oh, ox + ow, oy + oh})
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, y))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Inputs: []Shape{{2, 3, 4}, {1, 3, 4}}},
			{Attrs: map[string]string{"format": "corner", "clip": "0.5", "std0": "0.1", "std1": "0.1", "std2": "0.2", "std3": "0.2"}, Inputs: []Shape{{1, 4, 4}, {1, 4, 4}}},
		},
	})

	opBipartiteMatching = Register(Def[BipartiteMatchingAttrs]{
		Name: "_contrib_bipartite_matching", Kind: "other",
		Doc: "Greedy bipartite matching of the score matrices data (..., rows, cols): taking scores from the highest " +
			"(the lowest with is_ascend), a row and a column both still free are matched while the score passes " +
			"threshold; the first free pair that does not pass ends the matching. The outputs are each row's column " +
			"(..., rows) and each column's row (..., cols), -1 where unmatched.",
		Inputs: []string{"data"}, Outputs: 2,
		Shape: func(_ *BipartiteMatchingAttrs, in []Shape) ([]Shape, error) {
			d := in[0]
			if len(d) < 2 {
				return nil, Errorf("data %v must have at least 2 dims (rows, cols)", d)
			}
			rows := d[:len(d)-1].Clone()
			cols := append(d[:len(d)-2].Clone(), d[len(d)-1])
			return []Shape{rows, cols}, nil
		},
		DType: func(_ *BipartiteMatchingAttrs, in []DType) ([]DType, error) {
			d, err := floatData(in[0])
			if err != nil {
				return nil, err
			}
			return []DType{d[0], d[0]}, nil
		},
		Kernel: func(_ *Env, a *BipartiteMatchingAttrs, in, out []Value) error {
			s := in[0].Shape
			nr, nc := s[len(s)-2], s[len(s)-1]
			x := in[0].Float64s()
			rm := make([]float64, out[0].Shape.Size())
			cm := make([]float64, out[1].Shape.Size())
			fillFloats(rm, -1)
			fillFloats(cm, -1)
			for b := 0; b*nr*nc < len(x); b++ {
				bipartiteMatch(a, x[b*nr*nc:(b+1)*nr*nc], nc, rm[b*nr:(b+1)*nr], cm[b*nc:(b+1)*nc])
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, rm))
			CopyData(out[1].Data, FromFloat64s(out[1].DType, cm))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Attrs: map[string]string{"threshold": "0.1"}, Inputs: []Shape{{3, 4}}, Low: 0, High: 1},
			{Attrs: map[string]string{"threshold": "0.8", "is_ascend": "True", "topk": "1"}, Inputs: []Shape{{2, 4, 3}}, Low: 0, High: 1},
		},
	})
}

// values parses MultiBoxPrior's tuples.
func (a *MultiBoxPriorAttrs) values() (sizes, ratios, steps, offsets []float64, err error) {
	if sizes, err = parseFloatList("sizes", a.Sizes); err != nil {
		return
	}
	if ratios, err = parseFloatList("ratios", a.Ratios); err != nil {
		return
	}
	if steps, err = parseFloatList("steps", a.Steps); err != nil {
		return
	}
	if offsets, err = parseFloatList("offsets", a.Offsets); err != nil {
		return
	}
	switch {
	case len(sizes) == 0 || len(ratios) == 0:
		err = Errorf("sizes %v and ratios %v must not be empty", a.Sizes, a.Ratios)
	case len(steps) != 2:
		err = Errorf("steps %v must be (step y, step x)", a.Steps)
	case len(offsets) != 2:
		err = Errorf("offsets %v must be (y, x)", a.Offsets)
	}
	for _, r := range ratios {
		if err == nil && !(r > 0) {
			err = Errorf("ratios %v must be positive", a.Ratios)
		}
	}
	return
}

// parseFloatList parses a tuple of numbers, "(0.5, 0.25)" or "[1]".
func parseFloatList(name, s string) ([]float64, error) {
	items, ok := splitTuple(s)
	if !ok {
		return nil, Errorf("%s=%q must be a tuple of numbers", name, s)
	}
	out := make([]float64, len(items))
	for i, it := range items {
		v, err := parseFloat(it)
		if err != nil {
			return nil, Errorf("%s=%q must be a tuple of numbers", name, s)
		}
		out[i] = v
	}
	return out, nil
}

// boxCenter returns the centre and size of a corner box.
func boxCenter(b []float64) (x, y, w, h float64) {
	w, h = b[2]-b[0], b[3]-b[1]
	return b[0] + w/2, b[1] + h/2, w, h
}

// fillFloats sets every element of x to v.
func fillFloats(x []float64, v float64) {
	for i := range x {
		x[i] = v
	}
}

// boxIoUCorner is the intersection over union of two corner boxes, 0 when
// the union is empty.
func boxIoUCorner(a, b []float64) float64 {
	w := max(0, min(a[2], b[2])-max(a[0], b[0]))
	h := max(0, min(a[3], b[3])-max(a[1], b[1]))
	i := w * h
	u := (a[2]-a[0])*(a[3]-a[1]) + (b[2]-b[0])*(b[3]-b[1]) - i
	if u <= 0 {
		return 0
	}
	return i / u
}

// multiBoxDetect is MultiBoxDetection's kernel on float64 values.
func multiBoxDetect(a *MultiBoxDetectionAttrs, v []float64, cs Shape, cls, loc, anchors []float64) []float64 {
	nb, nc, na := cs[0], cs[1], cs[2]
	out := make([]float64, nb*na*6)
	fillFloats(out, -1)
	rows := make([]float64, na*6)
	for b := range nb {
		p := cls[b*nc*na : (b+1)*nc*na]
		l := loc[b*na*4 : (b+1)*na*4]
		for i := range na {
			score, id := -1.0, 0
			for j := 1; j < nc; j++ {
				if t := p[j*na+i]; t > score {
					score, id = t, j
				}
			}
			if id > 0 && score < a.Threshold {
				id = 0
			}
			r := rows[i*6 : i*6+6]
			r[0], r[1] = float64(id-1), score
			ax, ay, aw, ah := boxCenter(anchors[i*4 : i*4+4])
			ox, oy := l[i*4]*v[0]*aw+ax, l[i*4+1]*v[1]*ah+ay
			ow, oh := math.Exp(l[i*4+2]*v[2])*aw/2, math.Exp(l[i*4+3]*v[3])*ah/2
			box := [4]float64{ox - ow, oy - oh, ox + ow, oy + oh}
			for k := range box {
				if a.Clip {
					box[k] = max(0, min(1, box[k]))
				}
				r[2+k] = box[k]
			}
		}
		o := out[b*na*6 : (b+1)*na*6]
		valid := 0
		for i := range na {
			if rows[i*6] >= 0 {
				copy(o[valid*6:valid*6+6], rows[i*6:i*6+6])
				valid++
			}
		}
		if valid < 1 || a.NMSThreshold <= 0 || a.NMSThreshold > 1 {
			continue
		}
		kept := append([]float64(nil), o[:valid*6]...)
		order := make([]int, valid)
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(i, j int) bool { return kept[order[i]*6+1] > kept[order[j]*6+1] })
		nkeep := valid
		if a.NMSTopK > 0 && a.NMSTopK < nkeep {
			nkeep = a.NMSTopK
			for i := nkeep; i < valid; i++ {
				o[i*6] = -1
			}
		}
		for i := range nkeep {
			copy(o[i*6:i*6+6], kept[order[i]*6:order[i]*6+6])
		}
		for i := range nkeep {
			if o[i*6] < 0 {
				continue
			}
			for j := i + 1; j < nkeep; j++ {
				if o[j*6] < 0 {
					continue
				}
				if (a.ForceSuppress || o[i*6] == o[j*6]) && boxIoUCorner(o[i*6+2:i*6+6], o[j*6+2:j*6+6]) >= a.NMSThreshold {
					o[j*6] = -1
				}
			}
		}
	}
	return out
}

// multiBoxTarget is MultiBoxTarget's kernel on float64 values: it
// returns loc_target, loc_mask and cls_target.
func multiBoxTarget(a *MultiBoxTargetAttrs, anchors []float64, ls Shape, labels []float64, ps Shape, preds []float64) (lt, lm, ct []float64) {
	v, _ := parseFloatList("variances", a.Variances)
	nb, nl, lw := ls[0], ls[1], ls[2]
	na, nc := len(anchors)/4, ps[1]
	lt, lm, ct = make([]float64, nb*na*4), make([]float64, nb*na*4), make([]float64, nb*na)
	fillFloats(ct, a.IgnoreLabel)
	for b := range nb {
		lab := labels[b*nl*lw : (b+1)*nl*lw]
		ng := 0
		for ng < nl && lab[ng*lw] != -1 {
			ng++
		}
		if ng == 0 {
			continue
		}
		iou := make([]float64, na*ng)
		for j := range na {
			for k := range ng {
				iou[j*ng+k] = boxIoUSafe(anchors[j*4:j*4+4], lab[k*lw+1:k*lw+5])
			}
		}
		gtDone := make([]bool, ng)
		flag := make([]int, na) // -1: undecided, 1: positive, 0: negative
		fillInts(flag, -1)
		matchIoU, match := make([]float64, na), make([]int, na)
		fillFloats(matchIoU, -1)
		fillInts(match, -1)
		positives := 0
		// Each box takes its best free anchor, the best pairs first.
		for {
			bestA, bestG, best := -1, -1, 1e-6
			for j := range na {
				if flag[j] == 1 {
					continue
				}
				for k := range ng {
					if !gtDone[k] && iou[j*ng+k] > best {
						bestA, bestG, best = j, k, iou[j*ng+k]
					}
				}
			}
			if bestA < 0 {
				break
			}
			matchIoU[bestA], match[bestA] = best, bestG
			positives++
			gtDone[bestG], flag[bestA] = true, 1
		}
		bestOf := func(j int) {
			bestG, best := -1, -1.0
			for k := range ng {
				if iou[j*ng+k] > best {
					bestG, best = k, iou[j*ng+k]
				}
			}
			matchIoU[j], match[j] = best, bestG
		}
		if a.OverlapThreshold > 0 {
			for j := range na {
				if flag[j] == 1 {
					continue
				}
				bestOf(j)
				if matchIoU[j] > a.OverlapThreshold {
					positives++
					gtDone[match[j]], flag[j] = true, 1
				}
			}
		}
		if a.NegativeMiningRatio > 0 {
			neg := min(int(float64(positives)*a.NegativeMiningRatio), na-positives)
			type cand struct {
				p float64
				j int
			}
			var cands []cand
			for j := range na {
				if flag[j] == 1 {
					continue
				}
				if matchIoU[j] < 0 {
					bestOf(j)
				}
				if matchIoU[j] < a.NegativeMiningThresh && flag[j] == -1 {
					m := math.Inf(-1)
					for k := range nc {
						m = max(m, preds[(b*nc+k)*na+j])
					}
					sum := 0.0
					for k := range nc {
						sum += math.Exp(preds[(b*nc+k)*na+j] - m)
					}
					cands = append(cands, cand{math.Exp(preds[b*nc*na+j]-m) / sum, j})
				}
			}
			// The least background probability first: the hardest negatives.
			sort.SliceStable(cands, func(i, k int) bool { return cands[i].p < cands[k].p })
			for i := 0; i < neg && i < len(cands); i++ {
				flag[cands[i].j] = 0
			}
		} else {
			for j := range flag {
				if flag[j] != 1 {
					flag[j] = 0
				}
			}
		}
		for j := range na {
			switch flag[j] {
			case 1:
				g := lab[match[j]*lw : match[j]*lw+5]
				ct[b*na+j] = g[0] + 1
				ax, ay, aw, ah := boxCenter(anchors[j*4 : j*4+4])
				gx, gy, gw, gh := boxCenter(g[1:5])
				t := [4]float64{(gx - ax) / aw / v[0], (gy - ay) / ah / v[1], math.Log(gw/aw) / v[2], math.Log(gh/ah) / v[3]}
				for k := range 4 {
					lt[(b*na+j)*4+k] = t[k]
					lm[(b*na+j)*4+k] = 1
				}
			case 0:
				ct[b*na+j] = 0
			}
		}
	}
	return lt, lm, ct
}

// boxIoUSafe is the intersection over union of two corner boxes, 0 when
// the union is 0 (MXNet's safe division).
func boxIoUSafe(a, b []float64) float64 {
	w := max(0, min(a[2], b[2])-max(a[0], b[0]))
	h := max(0, min(a[3], b[3])-max(a[1], b[1]))
	i := w * h
	u := (a[2]-a[0])*(a[3]-a[1]) + (b[2]-b[0])*(b[3]-b[1]) - i
	if u == 0 {
		return 0
	}
	return i / u
}

// fillInts sets every element of x to v.
func fillInts(x []int, v int) {
	for i := range x {
		x[i] = v
	}
}

// bipartiteMatch matches one score matrix x (rows x nc) into the row and
// column markers (which start at -1).
func bipartiteMatch(a *BipartiteMatchingAttrs, x []float64, nc int, rm, cm []float64) {
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		if a.IsAscend {
			return x[order[i]] < x[order[j]]
		}
		return x[order[i]] > x[order[j]]
	})
	count := 0
	for _, k := range order {
		r, c := k/nc, k%nc
		if rm[r] != -1 || cm[c] != -1 {
			continue
		}
		if (!a.IsAscend && x[k] > a.Threshold) || (a.IsAscend && x[k] < a.Threshold) {
			rm[r], cm[c] = float64(c), float64(r)
			count++
			if a.TopK > 0 && count > a.TopK {
				break
			}
		} else {
			break
		}
	}
}

// MultiBoxPrior returns the SSD anchor boxes (1, H·W·anchors, 4) of the
// feature map x (N, C, H, W); attrs set sizes, ratios, clip, steps and
// offsets.
func (f F) MultiBoxPrior(x Tensor, attrs ...Attr) Tensor { return f.call1(opMultiBoxPrior, attrs, x) }

// MultiBoxDetection returns SSD's detections (N, anchors, 6) from class
// probabilities, box offsets and anchors.
func (f F) MultiBoxDetection(clsProb, locPred, anchor Tensor, attrs ...Attr) Tensor {
	return f.call1(opMultiBoxDetection, attrs, clsProb, locPred, anchor)
}

// MultiBoxTarget returns SSD's training targets: loc_target, loc_mask
// and cls_target.
func (f F) MultiBoxTarget(anchor, label, clsPred Tensor, attrs ...Attr) (locTarget, locMask, clsTarget Tensor) {
	out := f.Invoke(opMultiBoxTarget, mustAttrs(opMultiBoxTarget, attrs), anchor, label, clsPred)
	return out[0], out[1], out[2]
}

// BoxEncode returns the offset targets of the matched boxes and their
// mask (_contrib_box_encode).
func (f F) BoxEncode(samples, matches, anchors, refs, means, stds Tensor) (targets, masks Tensor) {
	out := f.Invoke(opBoxEncode, &NoAttrs{}, samples, matches, anchors, refs, means, stds)
	return out[0], out[1]
}

// BoxDecode returns the corner boxes that the offsets x (B, N, 4) give
// from anchors (1, N, 4).
func (f F) BoxDecode(x, anchors Tensor, attrs ...Attr) Tensor {
	return f.call1(opBoxDecode, attrs, x, anchors)
}

// BipartiteMatching matches the rows and columns of the score matrices x
// greedily; it returns each row's column and each column's row (-1:
// unmatched).
func (f F) BipartiteMatching(x Tensor, threshold float64, attrs ...Attr) (rows, cols Tensor) {
	out := f.Invoke(opBipartiteMatching, mustAttrs(opBipartiteMatching, append([]Attr{{"threshold", threshold}}, attrs...)), x)
	return out[0], out[1]
}
