//go:build race

package onnx_test

// raceDetector is set under the race detector, which slows hybridgo's
// forward passes and the writing of parameters ten to twenty times:
// TestModelZooONNXRuntime then checks a subset of the zoo.
const raceDetector = true
