//go:build race

package worker_test

// raceDetector: the race detector's runtime cannot map its shadow memory
// under an address space limit, and reports that instead of out of memory.
const raceDetector = true
