package ops_test

import (
	"math"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// TestOptimizerUpdates checks a step of the update ops by hand, and that
// the states are updated in place as in MXNet.
func TestOptimizerUpdates(t *testing.T) {
	F := eager.F
	w := eager.Array([]float64{1, -2}, 2)
	g := eager.Array([]float64{0.5, 4}, 2)

	checkArray(t, "sgd_update", F.SGDUpdate(w, g, 0.1, ops.Attr{"wd", 0.5}, ops.Attr{"clip_gradient", 1.0}), ops.Shape{2},
		[]float64{1*0.95 - 0.05, -2*0.95 - 0.1}, 1e-12)

	mom := eager.Array([]float64{0.2, 0}, 2)
	out := F.SGDMomUpdate(w, g, mom, 0.1, ops.Attr{"momentum", 0.9})
	checkArray(t, "sgd_mom_update mom", mom, ops.Shape{2}, []float64{0.18 - 0.05, -0.4}, 1e-12)
	checkArray(t, "sgd_mom_update", out, ops.Shape{2}, []float64{1 + 0.13, -2.4}, 1e-12)

	mean, variance := eager.Array([]float64{0, 0}, 2), eager.Array([]float64{0, 0}, 2)
	out = F.AdamUpdate(w, g, mean, variance, 0.01, ops.Attr{"epsilon", 0.0})
	// After one step from zero states: mean = 0.1 g, var = 0.001 g², so
	// the step is lr·0.1/sqrt(0.001)·sign(g).
	step := 0.01 * 0.1 / math.Sqrt(0.001)
	checkArray(t, "adam_update", out, ops.Shape{2}, []float64{1 - step, -2 - step}, 1e-12)
	checkArray(t, "adam_update mean", mean, ops.Shape{2}, []float64{0.05, 0.4}, 1e-12)

	// _adamw_update skips the step when rescale_grad is 0.
	mean2 := eager.Array([]float64{0, 0}, 2)
	out = F.AdamWUpdate(w, g, mean2, F.ZerosLike(mean2), eager.Array([]float64{0}, 1), 0.1, ops.Attr{"eta", 1.0})
	checkArray(t, "_adamw_update skipped", out, ops.Shape{2}, []float64{1, -2}, 0)
	checkArray(t, "_adamw_update skipped mean", mean2, ops.Shape{2}, []float64{0, 0}, 0)

	checkArray(t, "signsgd_update", F.SignSGDUpdate(w, g, 0.1), ops.Shape{2}, []float64{0.9, -2.1}, 1e-12)

	z, n := eager.Array([]float64{0, 0}, 2), eager.Array([]float64{0, 0}, 2)
	F.FtrlUpdate(eager.Array([]float64{0, 0}, 2), g, z, n, 0.1)
	checkArray(t, "ftrl_update n", n, ops.Shape{2}, []float64{0.25, 16}, 1e-12)
	checkArray(t, "ftrl_update z", z, ops.Shape{2}, []float64{0.5, 4}, 1e-12)

	// rmspropalex_update from zero states, gamma1 0.5, gamma2 0, no epsilon:
	// n = d²/2, g = d/2, so delta = -lr·d/sqrt(d²/4) = -2·lr·sign(d).
	n2, g2, delta := eager.Array([]float64{0, 0}, 2), eager.Array([]float64{0, 0}, 2), eager.Array([]float64{0, 0}, 2)
	out = F.RMSPropAlexUpdate(w, g, n2, g2, delta, 0.1, ops.Attr{"gamma1", 0.5}, ops.Attr{"gamma2", 0.0}, ops.Attr{"epsilon", 0.0})
	checkArray(t, "rmspropalex_update", out, ops.Shape{2}, []float64{0.8, -2.2}, 1e-12)
	checkArray(t, "rmspropalex_update g", g2, ops.Shape{2}, []float64{0.25, 2}, 1e-12)

	// LAMB: with bias correction the first step's direction is
	// sign(g) + wd·w; the second phase scales lr by r1/r2.
	m3, v3 := eager.Array([]float64{0, 0}, 2), eager.Array([]float64{0, 0}, 2)
	dir := F.LambUpdatePhase1(w, g, m3, v3, 1, ops.Attr{"wd", 0.1}, ops.Attr{"epsilon", 0.0})
	checkArray(t, "lamb_update_phase1", dir, ops.Shape{2}, []float64{1.1, 0.8}, 1e-12)
	out = F.LambUpdatePhase2(w, dir, eager.Array([]float64{2}, 1), eager.Array([]float64{4}, 1), 0.1)
	checkArray(t, "lamb_update_phase2", out, ops.Shape{2}, []float64{1 - 0.055, -2 - 0.04}, 1e-12)
}
