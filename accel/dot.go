package accel

// sdotKernel is the float32 dot product of equal-length slices used by
// small products (see gemmDots), or nil when no vector kernel is available.
// kernel_amd64.go sets it on CPUs with AVX2 and FMA.
var sdotKernel func(x, y []float32) float32
