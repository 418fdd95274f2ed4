package ops

import (
	"math"
	"testing"
)

// BenchmarkBatchNormInference is ResNet's first BatchNorm outside
// training: 64 channels of 112x112, the running statistics.
func BenchmarkBatchNormInference(b *testing.B) {
	a := &BatchNormAttrs{Eps: 1e-5, Momentum: 0.9, Axis: 1}
	x := Value{Shape: Shape{1, 64, 112, 112}, Data: make([]float32, 64*112*112)}
	vec := func(v float32) Value {
		d := make([]float32, 64)
		for i := range d {
			d[i] = v + float32(i)/64
		}
		return Value{Shape: Shape{64}, Data: d}
	}
	in := []Value{x, vec(1), vec(0), vec(0.1), vec(2)}
	out := []Value{{Shape: x.Shape, Data: make([]float32, len(x.Data.([]float32)))}, vec(0), vec(0)}
	b.ResetTimer()
	for range b.N {
		batchNormKernel[float32](a, false, 1, in, out)
	}
}

// TestBatchNormFloat32Rounding checks the float32 kernel, which outside
// training normalises in float32, against the float64 one on the same
// numbers: odd sizes, channels last and first, large means (which a
// folded x*scale + shift would cancel), inside and outside training.
func TestBatchNormFloat32Rounding(t *testing.T) {
	for _, tc := range []struct {
		shape Shape
		axis  int
	}{{Shape{2, 5, 7, 3}, 1}, {Shape{3, 7}, 1}, {Shape{2, 3, 5}, 2}} {
		for _, train := range []bool{false, true} {
			x32, x64 := make([]float32, tc.shape.Size()), make([]float64, tc.shape.Size())
			for i := range x32 {
				x32[i] = 100 + float32((i*37)%23)/7
				x64[i] = float64(x32[i])
			}
			c := tc.shape[tc.axis]
			vecs := func(f func(i int) float32) (Value, Value) {
				d32, d64 := make([]float32, c), make([]float64, c)
				for i := range d32 {
					d32[i] = f(i)
					d64[i] = float64(d32[i])
				}
				return Value{Shape: Shape{c}, Data: d32}, Value{Shape: Shape{c}, Data: d64}
			}
			g32, g64 := vecs(func(i int) float32 { return 1 + float32(i)/3 })
			b32, b64 := vecs(func(i int) float32 { return float32(i) - 1 })
			m32, m64 := vecs(func(i int) float32 { return 101 + float32(i)/5 })
			v32, v64 := vecs(func(i int) float32 { return 0.5 + float32(i) })
			a := &BatchNormAttrs{Eps: 1e-3, Momentum: 0.9, Axis: tc.axis}
			out32 := []Value{{Shape: tc.shape, Data: make([]float32, len(x32))}, {Shape: Shape{c}, Data: make([]float32, c)}, {Shape: Shape{c}, Data: make([]float32, c)}}
			out64 := []Value{{Shape: tc.shape, Data: make([]float64, len(x32))}, {Shape: Shape{c}, Data: make([]float64, c)}, {Shape: Shape{c}, Data: make([]float64, c)}}
			batchNormKernel[float32](a, train, tc.axis, []Value{{Shape: tc.shape, Data: x32}, g32, b32, m32, v32}, out32)
			batchNormKernel[float64](a, train, tc.axis, []Value{{Shape: tc.shape, Data: x64}, g64, b64, m64, v64}, out64)
			y32, y64 := out32[0].Data.([]float32), out64[0].Data.([]float64)
			for i := range y32 {
				if d := math.Abs(float64(y32[i]) - y64[i]); d > 1e-6*(1+math.Abs(y64[i])) {
					t.Fatalf("%v axis %d train %v: y[%d] = %v, float64 gives %v", tc.shape, tc.axis, train, i, y32[i], y64[i])
				}
			}
		}
	}
}

// TestBatchNormTrainingStatistics checks the batch mean and variance
// (sums about each channel's first value, accel.ShiftedSums) against the
// two passes of the definition, on values with a large mean and a small
// variance whose first value lies far from the rest, in float32 and
// float64.
func TestBatchNormTrainingStatistics(t *testing.T) {
	shape := Shape{3, 2, 7, 9}
	outer, c, inner := 3, 2, 63
	x64 := make([]float64, shape.Size())
	for i := range x64 {
		x64[i] = 1e4 + float64((i*37)%23)/400
	}
	x64[0], x64[inner] = 1e4-3, 1e4+5 // the channels' first values
	x32 := make([]float32, len(x64))
	for i, v := range x64 {
		x32[i] = float32(v)
	}
	a := &BatchNormAttrs{Eps: 1e-3, Momentum: 0.9, Axis: 1}
	for _, f32 := range []bool{false, true} {
		var in, out []Value
		vec := func(v float64) Value {
			if f32 {
				return Value{Shape: Shape{c}, Data: []float32{float32(v), float32(v)}}
			}
			return Value{Shape: Shape{c}, Data: []float64{v, v}}
		}
		if f32 {
			in = []Value{{Shape: shape, Data: x32}, vec(1), vec(0), vec(0), vec(1)}
			out = []Value{{Shape: shape, Data: make([]float32, len(x32))}, vec(0), vec(0)}
			batchNormKernel[float32](a, true, 1, in, out)
		} else {
			in = []Value{{Shape: shape, Data: x64}, vec(1), vec(0), vec(0), vec(1)}
			out = []Value{{Shape: shape, Data: make([]float64, len(x64))}, vec(0), vec(0)}
			batchNormKernel[float64](a, true, 1, in, out)
		}
		for ch := range c {
			var vals []float64
			for o := range outer {
				for i := range inner {
					if f32 {
						vals = append(vals, float64(x32[(o*c+ch)*inner+i]))
					} else {
						vals = append(vals, x64[(o*c+ch)*inner+i])
					}
				}
			}
			mu, v := 0.0, 0.0
			for _, x := range vals {
				mu += x
			}
			mu /= float64(len(vals))
			for _, x := range vals {
				v += (x - mu) * (x - mu)
			}
			v /= float64(len(vals))
			var gotMu, gotV float64
			if f32 {
				gotMu, gotV = float64(out[1].Data.([]float32)[ch]), float64(out[2].Data.([]float32)[ch])
			} else {
				gotMu, gotV = out[1].Data.([]float64)[ch], out[2].Data.([]float64)[ch]
			}
			tol := 1e-12
			if f32 {
				tol = 1e-6 // the results are rounded to float32
			}
			if math.Abs(gotMu-mu) > tol*math.Abs(mu) || math.Abs(gotV-v) > tol*v {
				t.Errorf("float32 %v, channel %d: mean %v variance %v, want %v and %v", f32, ch, gotMu, gotV, mu, v)
			}
		}
	}
}

// TestBatchNormTrainingEmptyBatch checks that a batch of no images in
// training does not panic: the sums about each channel's first value
// have no first value to take.
func TestBatchNormTrainingEmptyBatch(t *testing.T) {
	a := &BatchNormAttrs{Eps: 1e-5, Momentum: 0.9, Axis: 1}
	vec := func() Value { return Value{Shape: Shape{3}, Data: []float32{1, 1, 1}} }
	x := Value{Shape: Shape{0, 3, 2, 2}, Data: []float32{}}
	out := []Value{{Shape: x.Shape, Data: []float32{}}, vec(), vec()}
	batchNormKernel[float32](a, true, 1, []Value{x, vec(), vec(), vec(), vec()}, out)
}
