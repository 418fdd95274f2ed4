// Package mpi is hybridgo's thin layer over an MPI library (OpenMPI from
// Debian: apt-get install libopenmpi-dev openmpi-bin): the few collectives
// that data-parallel training needs (sum-allreduce and broadcast of
// float32 and float64 buffers in place, barrier, abort), nothing else.
//
// It is compiled in only with the mpi build tag and cgo:
//
//	go build -tags mpi ./cmd/hybridgo
//
// Without them every function returns ErrNotBuilt (and Rank, Size say a
// single process), so the default build stays pure Go.
//
// All MPI calls run on one goroutine locked to its OS thread (the
// communication thread, as in Horovod), in the order they were started:
// Start queues a collective and returns at once, and the Request's Wait
// blocks until it has run. Every worker must start the same collectives
// in the same order; the trainer in nn/optim does. Wait gives up after
// the Timeout (SetTimeout): it prints which collective waited for how
// long and aborts the whole job, so that a worker that stopped
// answering makes the others fail instead of hanging.
package mpi

import (
	"errors"
	"time"
)

// ErrNotBuilt is what every call returns in a build without MPI.
var ErrNotBuilt = errors.New("this hybridgo was built without MPI: install OpenMPI (apt-get install libopenmpi-dev openmpi-bin) and build with the mpi tag and cgo, e.g. go build -tags mpi ./cmd/hybridgo")

// DefaultTimeout is how long a collective may wait for the other workers
// before the job is aborted, unless SetTimeout or the environment
// variable HYBRIDGO_MPI_TIMEOUT (a Go duration, e.g. 90s) says otherwise.
const DefaultTimeout = 5 * time.Minute

// Request is a started collective.
type Request interface {
	// Wait blocks until the collective has run on this worker and returns
	// its error.
	Wait() error
}

type doneRequest struct{ err error }

func (r doneRequest) Wait() error { return r.err }
