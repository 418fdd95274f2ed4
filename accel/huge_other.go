//go:build !linux

package accel

// MakeLarge returns a zeroed slice of length n and capacity c. On Linux
// large ones are backed by transparent huge pages; here it is make.
func MakeLarge[T Float](n, c int) []T { return make([]T, n, c) }
