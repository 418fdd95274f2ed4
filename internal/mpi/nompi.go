//go:build !mpi || !cgo

package mpi

import (
	"fmt"
	"os"
	"time"
)

// Built reports whether MPI is compiled in.
const Built = false

// Init starts MPI; without the mpi tag it returns ErrNotBuilt.
func Init() error { return ErrNotBuilt }

// Initialized reports whether Init succeeded and Finalize has not run.
func Initialized() bool { return false }

// Finalize shuts MPI down.
func Finalize() error { return nil }

// Rank is this worker's number, 0 to Size()-1.
func Rank() int { return 0 }

// Size is the number of workers.
func Size() int { return 1 }

// ThreadLevel names the thread support MPI gave.
func ThreadLevel() string { return "none" }

// SetTimeout sets how long a collective may wait.
func SetTimeout(time.Duration) {}

// Start queues a sum-allreduce of data ([]float32 or []float64) in place.
func Start(data any) Request { return doneRequest{ErrNotBuilt} }

// Allreduce sums data ([]float32 or []float64) over all workers in place.
func Allreduce(data any) error { return ErrNotBuilt }

// Bcast copies root's data ([]float32 or []float64) to every worker.
func Bcast(data any, root int) error { return ErrNotBuilt }

// Barrier waits for every worker.
func Barrier() error { return ErrNotBuilt }

// Abort ends every worker of the job with code after printing msg.
func Abort(code int, msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(code)
}
