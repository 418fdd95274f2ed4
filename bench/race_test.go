//go:build race

package bench

// raceDetector is true in a build with the race detector.
const raceDetector = true
