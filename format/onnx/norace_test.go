//go:build !race

package onnx_test

// raceEnabled is false: the tests run without the race detector.
const raceEnabled = false
