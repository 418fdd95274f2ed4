//go:build !race

package onnx_test

// raceDetector is false: the tests run without the race detector.
const raceDetector = false
