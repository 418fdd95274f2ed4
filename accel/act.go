package accel

import "math"

// Tanh sets y[i] = tanh(x[i]) and Sigmoid y[i] = 1/(1+exp(-x[i])), for
// the gates of recurrent layers. In float32 they evaluate a rational
// function of x (odd polynomials of degree 13 over degree 6, a minimax fit
// of tanh), within a few ulp of the exact values and relatively exact near
// 0, eight lanes at a time with AVX2; in float64 they call math. x and y
// may be the same slice.
func Tanh[T Float](x, y []T) {
	y = y[:len(x)]
	if x32, ok := any(x).([]float32); ok {
		tanh32s(x32, any(y).([]float32), false)
		return
	}
	for i, v := range x {
		y[i] = T(math.Tanh(float64(v)))
	}
}

// Sigmoid is the logistic function: see Tanh. In float32 it is
// (1 + tanh(x/2)) / 2.
func Sigmoid[T Float](x, y []T) {
	y = y[:len(x)]
	if x32, ok := any(x).([]float32); ok {
		tanh32s(x32, any(y).([]float32), true)
		return
	}
	for i, v := range x {
		y[i] = T(1 / (1 + math.Exp(-float64(v))))
	}
}

// tanhKernel is tanh32s's vector loop over a multiple of 8 elements, or
// nil where there is none.
var tanhKernel func(x, y []float32, sigmoid bool)

// tanh32s sets y to tanh(x), or with sigmoid to (1 + tanh(x/2)) / 2.
func tanh32s(x, y []float32, sigmoid bool) {
	n := 0
	if tanhKernel != nil {
		n = len(x) &^ 7
		if n > 0 {
			tanhKernel(x[:n], y[:n], sigmoid)
		}
	}
	for i := n; i < len(x); i++ {
		if sigmoid {
			y[i] = 0.5 + 0.5*Tanh32(0.5*x[i])
		} else {
			y[i] = Tanh32(x[i])
		}
	}
}

// tanhClamp is where tanh rounds to ±1 in float32; the rational function
// is evaluated on x clamped to it.
const tanhClamp = 7.90531110763549805

// The coefficients of the rational function, highest degree first: tanh(x)
// is about x * p(x²) / q(x²).
var (
	tanhP = [7]float32{-2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11,
		5.12229709037114e-08, 1.48572235717979e-05, 6.37261928875436e-04, 4.89352455891786e-03}
	tanhQ = [4]float32{1.19825839466702e-06, 1.18534705686654e-04, 2.26843463243900e-03, 4.89352518554385e-03}
)

// Tanh32 is tanh in float32, as Tanh computes it.
func Tanh32(x float32) float32 {
	x = min(max(x, -tanhClamp), tanhClamp)
	x2 := x * x
	p := tanhP[0]
	for _, c := range tanhP[1:] {
		p = p*x2 + c
	}
	q := tanhQ[0]
	for _, c := range tanhQ[1:] {
		q = q*x2 + c
	}
	return x * p / q
}
