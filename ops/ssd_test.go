package ops_test

import (
	"math"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/ops"
)

func TestSSDOps(t *testing.T) {
	F := eager.F
	// One cell, sizes 0.5 and 0.25, ratios 1 and 4: boxes of half sizes
	// 0.25, 0.125, then size 0.5 at ratio 4 (width 2x, height x/2).
	x := eager.Array(make([]float64, 4), 1, 1, 2, 2)
	pri := F.MultiBoxPrior(x, ops.Attr{"sizes", "(0.5, 0.25)"}, ops.Attr{"ratios", "(1, 4)"})
	want := []float64{0, 0, 0.5, 0.5,
		0.25 - 0.125, 0.25 - 0.125, 0.25 + 0.125, 0.25 + 0.125,
		0.25 - 0.5, 0.25 - 0.125, 0.25 + 0.5, 0.25 + 0.125}
	got := nd(pri).Float64s()
	if s := nd(pri).Shape(); !s.Equal(ops.Shape{1, 12, 4}) {
		t.Fatalf("MultiBoxPrior shape %v", s)
	}
	if i := optest.FirstDiff(got[:12], want, 1e-12, 1e-12); i >= 0 {
		t.Errorf("MultiBoxPrior: first cell %v, want %v", got[:12], want)
	}
	// The last cell's centre is (0.75, 0.75).
	if got[len(got)-4] != 0.75-0.5 || got[len(got)-1] != 0.75+0.125 {
		t.Errorf("MultiBoxPrior: last box %v", got[len(got)-4:])
	}

	// box_decode inverts box_encode (stds folded in alike).
	anchors := eager.Array([]float64{0.1, 0.1, 0.4, 0.5, 0.5, 0.2, 0.9, 0.6}, 1, 2, 4)
	refs := eager.Array([]float64{0.15, 0.05, 0.5, 0.45, 0.4, 0.3, 1, 0.8}, 1, 2, 4)
	samples := eager.Array([]float64{1, 1}, 1, 2)
	matches := eager.Array([]float64{0, 1}, 1, 2)
	means := eager.Array([]float64{0, 0, 0, 0}, 4)
	stds := eager.Array([]float64{0.1, 0.1, 0.2, 0.2}, 4)
	tg, mask := F.BoxEncode(samples, matches, anchors, refs, means, stds)
	checkArray(t, "box_encode mask", mask, ops.Shape{1, 2, 4}, []float64{1, 1, 1, 1, 1, 1, 1, 1}, 0)
	dec := F.BoxDecode(tg, anchors, ops.Attr{"format", "corner"}, ops.Attr{"std0", 0.1}, ops.Attr{"std1", 0.1}, ops.Attr{"std2", 0.2}, ops.Attr{"std3", 0.2})
	checkArray(t, "box_decode(box_encode)", dec, ops.Shape{1, 2, 4}, nd(refs).Float64s(), 1e-12)
	tg, _ = F.BoxEncode(eager.Array([]float64{1, -1}, 1, 2), matches, anchors, refs, means, stds)
	if v := nd(tg).Float64s()[4:]; v[0] != 0 || v[3] != 0 {
		t.Errorf("box_encode: a negative sample's targets %v, want 0", v)
	}

	// MXNet's example.
	rows, cols := F.BipartiteMatching(eager.Array([]float64{0.5, 0.6, 0.1, 0.2, 0.3, 0.4}, 3, 2), 1e-12)
	checkArray(t, "bipartite rows", rows, ops.Shape{3}, []float64{1, -1, 0}, 0)
	checkArray(t, "bipartite cols", cols, ops.Shape{2}, []float64{2, 0}, 0)

	// Two anchors of class 1 overlapping, one of class 2; zero offsets give
	// the anchors back. The weaker class-1 box is suppressed.
	an := eager.Array([]float64{0.1, 0.1, 0.5, 0.5, 0.12, 0.1, 0.52, 0.5, 0.6, 0.6, 0.9, 0.9}, 1, 3, 4)
	cls := eager.Array([]float64{
		0.1, 0.2, 0.1, // background
		0.8, 0.7, 0.1, // class 1
		0.1, 0.1, 0.8, // class 2
	}, 1, 3, 3)
	det := nd(F.MultiBoxDetection(cls, F.ZerosLike(eager.Array(make([]float64, 12), 1, 12)), an)).Float64s()
	wantDet := []float64{
		0, 0.8, 0.1, 0.1, 0.5, 0.5,
		1, 0.8, 0.6, 0.6, 0.9, 0.9,
		-1, 0.7, 0.12, 0.1, 0.52, 0.5,
	}
	if i := optest.FirstDiff(det, wantDet, 1e-12, 1e-12); i >= 0 || math.IsNaN(det[0]) {
		t.Errorf("MultiBoxDetection: %v, want %v", det, wantDet)
	}

	// MultiBoxTarget: anchor 0 is the box; with mining (1 per positive) the
	// negative is the anchor of least background probability, anchor 2.
	anc := eager.Array([]float64{0, 0, 0.5, 0.5, 0.5, 0.5, 1, 1, 0, 0.5, 0.5, 1}, 1, 3, 4)
	lab := eager.Array([]float64{1, 0, 0, 0.5, 0.5, -1, -1, -1, -1, -1}, 1, 2, 5)
	pred := eager.Array([]float64{0, 2, 0, 0, 0, 1}, 1, 2, 3)
	lt, lm, ct := F.MultiBoxTarget(anc, lab, pred)
	checkArray(t, "MultiBoxTarget loc_target", lt, ops.Shape{1, 12}, make([]float64, 12), 1e-12)
	checkArray(t, "MultiBoxTarget loc_mask", lm, ops.Shape{1, 12}, []float64{1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}, 0)
	checkArray(t, "MultiBoxTarget cls_target", ct, ops.Shape{1, 3}, []float64{2, 0, 0}, 0)
	_, _, ct = F.MultiBoxTarget(anc, lab, pred, ops.Attr{"negative_mining_ratio", 1.0})
	checkArray(t, "MultiBoxTarget mined cls_target", ct, ops.Shape{1, 3}, []float64{2, -1, 0}, 0)
}
