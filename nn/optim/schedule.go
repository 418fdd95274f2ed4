package optim

import "math"

// LRSchedule gives the learning rate at an update step, from the
// optimizer's base rate. Steps count updates: 0 before the first, 1 during
// the first, and so on (MXNet's num_update).
type LRSchedule interface {
	LR(baseLR float64, step int) float64
}

type factorSchedule struct {
	step         int
	factor, stop float64
}

// FactorSchedule multiplies the rate by factor every step updates (MXNet's
// FactorScheduler): base·factor^⌊(n-1)/step⌋ at update n, never below
// stopFactorLR.
func FactorSchedule(step int, factor, stopFactorLR float64) LRSchedule {
	if step < 1 {
		step = 1
	}
	return factorSchedule{step, factor, stopFactorLR}
}

func (s factorSchedule) LR(base float64, n int) float64 {
	k := 0
	if n > 0 {
		k = (n - 1) / s.step
	}
	lr := base * math.Pow(s.factor, float64(k))
	if lr < s.stop {
		lr = s.stop
	}
	return lr
}

type multiFactorSchedule struct {
	steps  []int
	factor float64
}

// MultiFactorSchedule multiplies the rate by factor once past each of the
// given update counts (MXNet's MultiFactorScheduler): at update n the rate
// is base·factor^(number of steps s with n > s).
func MultiFactorSchedule(steps []int, factor float64) LRSchedule {
	return multiFactorSchedule{append([]int(nil), steps...), factor}
}

func (s multiFactorSchedule) LR(base float64, n int) float64 {
	lr := base
	for _, st := range s.steps {
		if n > st {
			lr *= s.factor
		}
	}
	return lr
}

type cosineSchedule struct {
	maxUpdate int
	final     float64
}

// CosineSchedule decays the rate from the base to finalLR along half a
// cosine over maxUpdate updates, then stays at finalLR (MXNet's
// CosineScheduler).
func CosineSchedule(maxUpdate int, finalLR float64) LRSchedule {
	if maxUpdate < 1 {
		maxUpdate = 1
	}
	return cosineSchedule{maxUpdate, finalLR}
}

func (s cosineSchedule) LR(base float64, n int) float64 {
	if n >= s.maxUpdate {
		return s.final
	}
	if n < 0 {
		n = 0
	}
	return s.final + (base-s.final)*(1+math.Cos(math.Pi*float64(n)/float64(s.maxUpdate)))/2
}

type warmupSchedule struct {
	steps int
	start float64
	then  LRSchedule
}

// WarmupSchedule raises the rate linearly from startLR to the base rate
// over warmupSteps updates, then follows then, with its steps counted from
// the end of the warmup (nil: the base rate).
func WarmupSchedule(warmupSteps int, startLR float64, then LRSchedule) LRSchedule {
	return warmupSchedule{warmupSteps, startLR, then}
}

func (s warmupSchedule) LR(base float64, n int) float64 {
	if n < s.steps {
		return s.start + (base-s.start)*float64(max(n, 0))/float64(s.steps)
	}
	if s.then == nil {
		return base
	}
	return s.then.LR(base, n-s.steps)
}
