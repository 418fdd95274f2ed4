package ops_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/internal/torchtest"
	"github.com/hybridgo/hybridgo/ops"
)

// numpyCase is one op call whose result numpy computes too: ref is a
// Python expression of the inputs x0, x1, … (numpy arrays) and np.
type numpyCase struct {
	op     string
	attrs  map[string]string
	inputs []ops.Shape
	ints   map[int]int       // inputs holding integers in [0, n)
	out    int               // the output to compare
	values map[int][]float64 // inputs given as they are
	// distinct makes the integers of each input differ (scatter_nd's
	// coordinates must not repeat for numpy's result to be defined).
	distinct bool
	ref      string
}

// numpyRef reads the cases and defines the helpers their expressions use.
const numpyRef = `
import json, sys
import numpy as np
cases = json.load(open(sys.argv[1]))
def seqmask(x, l, v, axis):
    y = x.copy()
    for b, n in enumerate(l.astype(int)):
        if axis == 0: y[n:, b] = v
        else: y[b, n:] = v
    return y
def seqlast(x, l, axis):
    l = l.astype(int) - 1
    return np.stack([x[n, b] if axis == 0 else x[b, n] for b, n in enumerate(l)])
def seqrev(x, l):
    y = x.copy()
    for b, n in enumerate(l.astype(int)):
        y[:n, b] = x[:n, b][::-1]
    return y
def topk_idx(x, k, axis):
    return np.take(np.argsort(-x, axis=axis, kind='stable'), np.arange(k), axis=axis)
def scatter_nd(d, i, shape):
    y = np.zeros(shape)
    y[tuple(i.astype(int))] = d
    return y
def khatri_rao(*ms):
    out = ms[0]
    for m in ms[1:]:
        out = np.einsum('ik,jk->ijk', out, m).reshape(-1, m.shape[1])
    return out
def instnorm(x, g, b, eps):
    ax = tuple(range(2, x.ndim))
    m = x.mean(axis=ax, keepdims=True)
    v = x.var(axis=ax, keepdims=True)
    sh = (1, -1) + (1,) * (x.ndim - 2)
    return (x - m) / np.sqrt(v + eps) * g.reshape(sh) + b.reshape(sh)
def groupnorm(x, g, b, groups, eps):
    n = x.shape[0]
    r = x.reshape(n, groups, -1)
    m = r.mean(axis=2, keepdims=True)
    v = r.var(axis=2, keepdims=True)
    y = (r - m) / np.sqrt(v + eps) * g.reshape(1, -1, 1) + b.reshape(1, -1, 1)
    return y.reshape(x.shape)
def l2norm(x, mode, eps):
    ax = {"instance": tuple(range(1, x.ndim)), "channel": (1,), "spatial": tuple(range(2, x.ndim))}[mode]
    return x / np.sqrt((x * x).sum(axis=ax, keepdims=True) + eps)
`

// refLoop evaluates each case's expression on its inputs and prints the
// results as JSON.
const refLoop = `
out = []
for c in cases:
    env = dict(globals())
    env.update({"np": np, "seqmask": seqmask, "seqlast": seqlast, "seqrev": seqrev, "topk_idx": topk_idx, "scatter_nd": scatter_nd,
           "instnorm": instnorm, "groupnorm": groupnorm, "l2norm": l2norm, "khatri_rao": khatri_rao})
    for i, (shape, vals) in enumerate(c["inputs"]):
        env["x%d" % i] = np.array(vals, dtype=np.float64).reshape(shape)
    r = np.asarray(eval(c["ref"], env), dtype=np.float64)
    out.append([list(r.shape), r.ravel().tolist()])
print(json.dumps(out))
`

func TestNewOpsAgainstNumPy(t *testing.T) {
	if err := exec.Command(torchtest.Python, "-c", "import numpy").Run(); err != nil {
		t.Skipf("%s cannot import numpy: %v", torchtest.Python, err)
	}
	cases := []numpyCase{
		{op: "SwapAxis", attrs: map[string]string{"dim1": "0", "dim2": "2"}, inputs: []ops.Shape{{2, 3, 4}}, ref: "np.swapaxes(x0, 0, 2)"},
		{op: "swapaxes", attrs: map[string]string{"dim1": "1", "dim2": "-1"}, inputs: []ops.Shape{{2, 3, 4}}, ref: "np.swapaxes(x0, 1, 2)"},
		{op: "broadcast_axis", attrs: map[string]string{"axis": "(0, 2)", "size": "(3, 2)"}, inputs: []ops.Shape{{1, 2, 1}}, ref: "np.broadcast_to(x0, (3, 2, 2))"},
		{op: "diag", inputs: []ops.Shape{{3}}, ref: "np.diag(x0)"},
		{op: "diag", attrs: map[string]string{"k": "-1"}, inputs: []ops.Shape{{3}}, ref: "np.diag(x0, -1)"},
		{op: "diag", attrs: map[string]string{"k": "2"}, inputs: []ops.Shape{{3, 5}}, ref: "np.diag(x0, 2)"},
		{op: "diag", attrs: map[string]string{"k": "-1", "axis1": "1", "axis2": "2"}, inputs: []ops.Shape{{2, 4, 3}}, ref: "np.diagonal(x0, -1, 1, 2)"},
		{op: "Pad", attrs: map[string]string{"mode": "constant", "pad_width": "(0, 0, 0, 0, 1, 2, 3, 0)", "constant_value": "1.5"}, inputs: []ops.Shape{{1, 2, 3, 3}},
			ref: "np.pad(x0, ((0, 0), (0, 0), (1, 2), (3, 0)), constant_values=1.5)"},
		{op: "Pad", attrs: map[string]string{"mode": "edge", "pad_width": "(0, 0, 0, 0, 2, 1, 0, 3)"}, inputs: []ops.Shape{{2, 1, 3, 2}},
			ref: "np.pad(x0, ((0, 0), (0, 0), (2, 1), (0, 3)), mode='edge')"},
		{op: "pad", attrs: map[string]string{"mode": "reflect", "pad_width": "(0, 0, 0, 0, 2, 2, 1, 2)"}, inputs: []ops.Shape{{1, 2, 3, 4}},
			ref: "np.pad(x0, ((0, 0), (0, 0), (2, 2), (1, 2)), mode='reflect')"},
		{op: "Crop", attrs: map[string]string{"num_args": "1", "h_w": "(2, 3)", "offset": "(1, 2)"}, inputs: []ops.Shape{{1, 2, 4, 5}}, ref: "x0[:, :, 1:3, 2:5]"},
		{op: "Crop", attrs: map[string]string{"num_args": "2", "center_crop": "True"}, inputs: []ops.Shape{{1, 2, 5, 6}, {1, 1, 2, 3}}, ref: "x0[:, :, 1:3, 1:4]"},
		{op: "UpSampling", attrs: map[string]string{"scale": "2", "sample_type": "nearest", "num_args": "1"}, inputs: []ops.Shape{{1, 2, 2, 3}},
			ref: "x0.repeat(2, axis=2).repeat(2, axis=3)"},
		{op: "SequenceMask", attrs: map[string]string{"use_sequence_length": "True", "value": "-2"}, inputs: []ops.Shape{{4, 3, 2}, {3}}, ints: map[int]int{1: 5},
			ref: "seqmask(x0, x1, -2, 0)"},
		{op: "SequenceMask", attrs: map[string]string{"use_sequence_length": "True", "axis": "1"}, inputs: []ops.Shape{{3, 4}, {3}}, ints: map[int]int{1: 5},
			ref: "seqmask(x0, x1, 0, 1)"},
		{op: "SequenceLast", attrs: map[string]string{"use_sequence_length": "True"}, inputs: []ops.Shape{{4, 3, 2}, {3}}, ints: map[int]int{1: 5},
			ref: "seqlast(x0, np.maximum(x1, 1), 0)"},
		{op: "SequenceLast", attrs: map[string]string{"use_sequence_length": "True", "axis": "1"}, inputs: []ops.Shape{{3, 4, 2}, {3}}, ints: map[int]int{1: 4},
			ref: "seqlast(x0, np.maximum(x1, 1), 1)"},
		{op: "SequenceLast", inputs: []ops.Shape{{4, 3}}, ref: "x0[-1]"},
		{op: "SequenceReverse", attrs: map[string]string{"use_sequence_length": "True"}, inputs: []ops.Shape{{4, 3, 2}, {3}}, ints: map[int]int{1: 5},
			ref: "seqrev(x0, x1)"},
		{op: "SequenceReverse", inputs: []ops.Shape{{4, 3}}, ref: "x0[::-1]"},
		{op: "sort", inputs: []ops.Shape{{3, 5}}, ref: "np.sort(x0, axis=-1)"},
		{op: "sort", attrs: map[string]string{"axis": "0", "is_ascend": "False"}, inputs: []ops.Shape{{4, 3}}, ref: "-np.sort(-x0, axis=0)"},
		{op: "sort", attrs: map[string]string{"axis": "None"}, inputs: []ops.Shape{{2, 3}}, ref: "np.sort(x0, axis=None)"},
		{op: "argsort", inputs: []ops.Shape{{3, 5}}, ref: "np.argsort(x0, axis=-1, kind='stable')"},
		{op: "argsort", attrs: map[string]string{"axis": "0", "is_ascend": "False"}, inputs: []ops.Shape{{4, 3}}, ref: "np.argsort(-x0, axis=0, kind='stable')"},
		{op: "topk", attrs: map[string]string{"k": "2"}, inputs: []ops.Shape{{3, 5}}, ref: "topk_idx(x0, 2, -1)"},
		{op: "topk", attrs: map[string]string{"k": "2", "ret_typ": "value", "axis": "0"}, inputs: []ops.Shape{{4, 3}},
			ref: "np.take_along_axis(x0, topk_idx(x0, 2, 0), 0)"},
		{op: "topk", attrs: map[string]string{"k": "3", "ret_typ": "both", "is_ascend": "True"}, inputs: []ops.Shape{{2, 5}}, out: 1,
			ref: "np.argsort(x0, axis=-1, kind='stable')[:, :3]"},
		{op: "topk", attrs: map[string]string{"k": "2", "ret_typ": "mask"}, inputs: []ops.Shape{{2, 4}},
			ref: "(x0 >= -np.sort(-x0, axis=-1)[:, 1:2]).astype(float)"},
		{op: "gather_nd", inputs: []ops.Shape{{3, 4, 2}, {2, 5}}, ints: map[int]int{1: 3}, ref: "x0[tuple(x1.astype(int))]"},
		{op: "gather_nd", inputs: []ops.Shape{{3, 4}, {1, 2, 2}}, ints: map[int]int{1: 3}, ref: "x0[tuple(x1.astype(int))]"},
		{op: "scatter_nd", attrs: map[string]string{"shape": "(4, 3)"}, inputs: []ops.Shape{{2, 3}, {1, 2}}, ints: map[int]int{1: 4},
			distinct: true, ref: "scatter_nd(x0, x1, (4, 3))"},
		{op: "InstanceNorm", inputs: []ops.Shape{{2, 3, 2, 2}, {3}, {3}}, ref: "instnorm(x0, x1, x2, 1e-3)"},
		{op: "GroupNorm", attrs: map[string]string{"num_groups": "2"}, inputs: []ops.Shape{{2, 4, 3}, {2}, {2}}, ref: "groupnorm(x0, x1, x2, 2, 1e-5)"},
		{op: "GroupNorm", attrs: map[string]string{"num_groups": "2", "output_mean_var": "True"}, inputs: []ops.Shape{{2, 4, 3}, {2}, {2}}, out: 2,
			ref: "np.sqrt(x0.reshape(2, 2, -1).var(axis=2) + 1e-5)"},
		{op: "L2Normalization", inputs: []ops.Shape{{2, 3, 2}}, ref: "l2norm(x0, 'instance', 1e-10)"},
		{op: "L2Normalization", attrs: map[string]string{"mode": "channel"}, inputs: []ops.Shape{{2, 3, 2, 2}}, ref: "l2norm(x0, 'channel', 1e-10)"},
		{op: "L2Normalization", attrs: map[string]string{"mode": "spatial"}, inputs: []ops.Shape{{2, 3, 4}}, ref: "l2norm(x0, 'spatial', 1e-10)"},
		{op: "L2Normalization", attrs: map[string]string{"mode": "channel"}, inputs: []ops.Shape{{2, 3, 2}}, out: 1,
			ref: "np.sqrt((x0 * x0).sum(axis=1, keepdims=True) + 1e-10)"},
		{op: "_linalg_gemm2", inputs: []ops.Shape{{2, 3, 4}, {2, 4, 2}}, ref: "x0 @ x1"},
		{op: "linalg_gemm2", attrs: map[string]string{"transpose_a": "True", "transpose_b": "True", "alpha": "0.5"}, inputs: []ops.Shape{{4, 3}, {2, 4}},
			ref: "0.5 * x0.T @ x1.T"},
		{op: "khatri_rao", attrs: map[string]string{"num_args": "3"}, inputs: []ops.Shape{{2, 3}, {3, 3}, {2, 3}}, ref: "khatri_rao(x0, x1, x2)"},
		{op: "ravel_multi_index", attrs: map[string]string{"shape": "(7, 6)"}, inputs: []ops.Shape{{2, 5}}, ints: map[int]int{0: 6},
			ref: "np.ravel_multi_index(x0.astype(int), (7, 6))"},
		{op: "_unravel_index", attrs: map[string]string{"shape": "(5, 4, 3)"}, inputs: []ops.Shape{{6}}, ints: map[int]int{0: 60},
			ref: "np.array(np.unravel_index(x0.astype(int), (5, 4, 3)))"},
		{op: "_split_v2", attrs: map[string]string{"indices": "(1, 3)", "axis": "-1"}, inputs: []ops.Shape{{2, 2, 5}}, ref: "x0[..., 1:3]"},
		{op: "_split_v2", attrs: map[string]string{"indices": "(1, 3)", "axis": "-1"}, inputs: []ops.Shape{{2, 2, 5}}, out: 1, ref: "x0[..., 3:]"},
		{op: "_split_v2", attrs: map[string]string{"indices": "()", "sections": "3", "squeeze_axis": "True"}, inputs: []ops.Shape{{2, 3}}, out: 2, ref: "x0[:, 2]"},
	}
	checkAgainstPython(t, cases, numpyRef)
}

// checkAgainstPython runs each case here and in Python (script defines
// the helpers the cases' expressions use) and compares the results.
func checkAgainstPython(t *testing.T, cases []numpyCase, script string) {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 5))
	type jsonCase struct {
		Inputs [][2]any `json:"inputs"`
		Ref    string   `json:"ref"`
	}
	var js []jsonCase
	var got []*eager.NDArray
	for _, c := range cases {
		op := ops.MustLookup(c.op)
		attrs := parse(t, op, c.attrs)
		var in []*eager.NDArray
		jc := jsonCase{Ref: c.ref}
		for i, s := range c.inputs {
			xs := make([]float64, s.Size())
			var perm []int
			if n, ok := c.ints[i]; ok && c.distinct {
				perm = r.Perm(n)
			}
			for j := range xs {
				if n, ok := c.ints[i]; ok {
					xs[j] = float64(r.IntN(n))
					if perm != nil {
						xs[j] = float64(perm[j])
					}
				} else {
					xs[j] = float64(r.IntN(2000)-1000) / 100 // distinct enough for sorting
				}
			}
			if v, ok := c.values[i]; ok {
				xs = v
			}
			in = append(in, eager.Array(xs, s...))
			jc.Inputs = append(jc.Inputs, [2]any{s, xs})
		}
		out, err := eager.Run(op, attrs, in...)
		if err != nil {
			t.Fatalf("%s %v: %v", c.op, c.attrs, err)
		}
		js, got = append(js, jc), append(got, out[c.out])
	}
	dir := t.TempDir()
	data, _ := json.Marshal(js)
	if err := os.WriteFile(filepath.Join(dir, "cases.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	var want [][2]json.RawMessage
	if err := json.Unmarshal(torchtest.Run(t, dir, script+refLoop, "cases.json"), &want); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		var shape ops.Shape
		var vals []float64
		_ = json.Unmarshal(want[i][0], &shape)
		_ = json.Unmarshal(want[i][1], &vals)
		name := fmt.Sprintf("%s %v", c.op, c.attrs)
		if !got[i].Shape().Equal(shape) {
			t.Errorf("%s: shape %v, numpy's %v", name, got[i].Shape(), shape)
			continue
		}
		if j := optest.FirstDiff(got[i].Float64s(), vals, 1e-10, 1e-10); j >= 0 {
			t.Errorf("%s: element %d is %v, numpy's %v\ngot  %v\nwant %v", name, j, got[i].Float64s()[j], vals[j], got[i].Float64s(), vals)
		}
	}
}

// torchRef adds PyTorch to numpyRef, for the ops numpy has no counterpart of.
const torchRef = numpyRef + `
import torch
import torch.nn.functional as tf
import torchvision
def resize(x, h, w, align):
    return tf.interpolate(torch.from_numpy(x), size=(h, w), mode='bilinear', align_corners=align).numpy()
def roi_pool(x, rois, h, w, scale):
    return torchvision.ops.roi_pool(torch.from_numpy(x), torch.from_numpy(rois), (h, w), scale).numpy()
`

func TestNewOpsAgainstPyTorch(t *testing.T) {
	torchtest.Require(t)
	cases := []numpyCase{
		{op: "_contrib_BilinearResize2D", attrs: map[string]string{"height": "5", "width": "7"}, inputs: []ops.Shape{{1, 2, 3, 4}},
			ref: "resize(x0, 5, 7, True)"},
		{op: "_contrib_BilinearResize2D", attrs: map[string]string{"height": "5", "width": "7", "align_corners": "False"}, inputs: []ops.Shape{{1, 2, 3, 4}},
			ref: "resize(x0, 5, 7, False)"},
		{op: "_contrib_BilinearResize2D", attrs: map[string]string{"height": "2", "width": "3", "align_corners": "False"}, inputs: []ops.Shape{{2, 1, 5, 6}},
			ref: "resize(x0, 2, 3, False)"},
		{op: "_contrib_BilinearResize2D", attrs: map[string]string{"mode": "like"}, inputs: []ops.Shape{{1, 1, 4, 3}, {1, 1, 3, 5}},
			ref: "resize(x0, 3, 5, True)"},
		{op: "ROIPooling", attrs: map[string]string{"pooled_size": "(2, 3)", "spatial_scale": "0.5"}, inputs: []ops.Shape{{2, 3, 6, 7}, {4, 5}},
			values: map[int][]float64{1: {0, 0, 0, 13, 11, 1, 2, 3, 9, 8, 1, 4.4, 1, 6, 12.6, 0, 5, 5, 5, 5}},
			ref:    "roi_pool(x0, x1, 2, 3, 0.5)"},
		{op: "ROIPooling", attrs: map[string]string{"pooled_size": "(3, 3)", "spatial_scale": "1"}, inputs: []ops.Shape{{1, 2, 5, 5}, {2, 5}},
			values: map[int][]float64{1: {0, 1, 1, 2, 3, 0, 0, 0, 4, 4}},
			ref:    "roi_pool(x0, x1, 3, 3, 1.0)"},
	}
	checkAgainstPython(t, cases, torchRef)
}
