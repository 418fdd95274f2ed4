//go:build mpi && cgo

package mpi

/*
#cgo pkg-config: ompi-c
#include <stdlib.h>
#include <mpi.h>

static int hg_init(int *provided) {
	// OpenMPI's own handlers for SIGSEGV and friends would take those
	// signals from the Go runtime, which turns them into panics.
	setenv("OMPI_MCA_opal_signal", "", 0);
	int inited = 0;
	MPI_Initialized(&inited);
	if (inited) {
		MPI_Query_thread(provided);
		return MPI_SUCCESS;
	}
	return MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, provided);
}
static int hg_rank(int *r) { return MPI_Comm_rank(MPI_COMM_WORLD, r); }
static int hg_size(int *s) { return MPI_Comm_size(MPI_COMM_WORLD, s); }
static int hg_allreduce_f32(float *p, int n) {
	return MPI_Allreduce(MPI_IN_PLACE, p, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}
static int hg_allreduce_f64(double *p, int n) {
	return MPI_Allreduce(MPI_IN_PLACE, p, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
static int hg_bcast_f32(float *p, int n, int root) { return MPI_Bcast(p, n, MPI_FLOAT, root, MPI_COMM_WORLD); }
static int hg_bcast_f64(double *p, int n, int root) { return MPI_Bcast(p, n, MPI_DOUBLE, root, MPI_COMM_WORLD); }
static int hg_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }
static int hg_finalize(void) { return MPI_Finalize(); }
static void hg_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }
static int hg_error_string(int code, char *buf) {
	int n = 0;
	MPI_Error_string(code, buf, &n);
	return n;
}
static int hg_thread_multiple(void) { return MPI_THREAD_MULTIPLE; }
static int hg_thread_serialized(void) { return MPI_THREAD_SERIALIZED; }
static int hg_thread_funneled(void) { return MPI_THREAD_FUNNELED; }
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// Built reports whether MPI is compiled in.
const Built = true

type job struct {
	name string
	run  func() error
	done chan error
}

var (
	mu        sync.Mutex
	started   bool
	finalized bool
	initErr   error
	rank      = 0
	size      = 1
	level     C.int
	jobs      chan job
	timeout   = DefaultTimeout
)

// Init starts MPI (MPI_Init_thread) on the communication thread. It may
// be called more than once; after Finalize it fails.
func Init() error {
	mu.Lock()
	defer mu.Unlock()
	if finalized {
		return fmt.Errorf("mpi: Init after Finalize")
	}
	if started {
		return initErr
	}
	started = true
	if s := os.Getenv("HYBRIDGO_MPI_TIMEOUT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			initErr = fmt.Errorf("mpi: HYBRIDGO_MPI_TIMEOUT=%q is not a positive Go duration (90s, 5m)", s)
			return initErr
		}
		timeout = d
	}
	// Starting a collective never blocks: the queue holds far more than
	// a trainer's buckets, and Wait's timeout covers the queue too.
	jobs = make(chan job, 1<<14)
	ready := make(chan error)
	go commThread(ready)
	initErr = <-ready
	return initErr
}

// commThread owns the OS thread that MPI was started on and runs every
// collective on it, one after another.
func commThread(ready chan<- error) {
	runtime.LockOSThread()
	var provided C.int
	if rc := C.hg_init(&provided); rc != C.MPI_SUCCESS {
		ready <- fmt.Errorf("mpi: MPI_Init_thread: %s", errorString(rc))
		return
	}
	level = provided
	var r, s C.int
	C.hg_rank(&r)
	C.hg_size(&s)
	rank, size = int(r), int(s)
	ready <- nil
	for j := range jobs {
		j.done <- j.run()
	}
}

func errorString(rc C.int) string {
	buf := (*C.char)(C.malloc(C.MPI_MAX_ERROR_STRING))
	defer C.free(unsafe.Pointer(buf))
	n := C.hg_error_string(rc, buf)
	return C.GoStringN(buf, n)
}

// Initialized reports whether Init succeeded and Finalize has not run.
func Initialized() bool {
	mu.Lock()
	defer mu.Unlock()
	return started && initErr == nil && !finalized
}

// Finalize shuts MPI down (MPI_Finalize); every worker must call it
// before it exits, or mpirun reports that it exited improperly. Calling
// it again, or without Init, does nothing.
func Finalize() error {
	mu.Lock()
	if !started || initErr != nil || finalized {
		mu.Unlock()
		return nil
	}
	finalized = true
	mu.Unlock()
	err := submit("Finalize", func() error { return check("MPI_Finalize", C.hg_finalize()) }).Wait()
	close(jobs)
	return err
}

// Rank is this worker's number, 0 to Size()-1 (0 before Init).
func Rank() int { return rank }

// Size is the number of workers (1 before Init).
func Size() int { return size }

// ThreadLevel names the thread support MPI gave.
func ThreadLevel() string {
	switch level {
	case C.hg_thread_multiple():
		return "multiple"
	case C.hg_thread_serialized():
		return "serialized"
	case C.hg_thread_funneled():
		return "funneled"
	}
	return "single"
}

// SetTimeout sets how long Wait waits for a collective before it aborts
// the job (DefaultTimeout unless set; d <= 0 restores it).
func SetTimeout(d time.Duration) {
	mu.Lock()
	defer mu.Unlock()
	if d <= 0 {
		d = DefaultTimeout
	}
	timeout = d
}

func check(call string, rc C.int) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	return fmt.Errorf("mpi: %s: %s", call, errorString(rc))
}

type request struct {
	name string
	done chan error
	err  error
	got  bool
}

// submit queues run on the communication thread.
func submit(name string, run func() error) Request {
	if !Initialized() && name != "Finalize" {
		return doneRequest{fmt.Errorf("mpi: %s before Init (or after Finalize)", name)}
	}
	r := &request{name: name, done: make(chan error, 1)}
	jobs <- job{name: name, run: run, done: r.done}
	return r
}

// Wait blocks until the collective has run. When it has waited longer
// than the timeout, the other workers are taken to be gone or stuck: it
// prints which collective waited and aborts the job.
func (r *request) Wait() error {
	if r.got {
		return r.err
	}
	mu.Lock()
	d := timeout
	mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case r.err = <-r.done:
		r.got = true
		return r.err
	case <-t.C:
		Abort(1, fmt.Sprintf("mpi: rank %d of %d: %s has waited %v for the other workers; a worker has died or stopped: aborting the job", rank, size, r.name, d))
		return nil // not reached
	}
}

// Start queues a sum-allreduce of data ([]float32 or []float64) in place
// over every worker and returns at once; the slice must not be touched
// until Wait returns.
func Start(data any) Request {
	switch d := data.(type) {
	case []float32:
		if len(d) == 0 {
			return doneRequest{}
		}
		return submit("Allreduce", func() error {
			return check("MPI_Allreduce", C.hg_allreduce_f32((*C.float)(unsafe.Pointer(&d[0])), C.int(len(d))))
		})
	case []float64:
		if len(d) == 0 {
			return doneRequest{}
		}
		return submit("Allreduce", func() error {
			return check("MPI_Allreduce", C.hg_allreduce_f64((*C.double)(unsafe.Pointer(&d[0])), C.int(len(d))))
		})
	}
	return doneRequest{fmt.Errorf("mpi: Allreduce takes []float32 or []float64, not %T", data)}
}

// Allreduce sums data ([]float32 or []float64) over all workers in place.
func Allreduce(data any) error { return Start(data).Wait() }

// Bcast copies root's data ([]float32 or []float64) to every worker.
func Bcast(data any, root int) error {
	switch d := data.(type) {
	case []float32:
		if len(d) == 0 {
			return nil
		}
		return submit("Bcast", func() error {
			return check("MPI_Bcast", C.hg_bcast_f32((*C.float)(unsafe.Pointer(&d[0])), C.int(len(d)), C.int(root)))
		}).Wait()
	case []float64:
		if len(d) == 0 {
			return nil
		}
		return submit("Bcast", func() error {
			return check("MPI_Bcast", C.hg_bcast_f64((*C.double)(unsafe.Pointer(&d[0])), C.int(len(d)), C.int(root)))
		}).Wait()
	}
	return fmt.Errorf("mpi: Bcast takes []float32 or []float64, not %T", data)
}

// Barrier waits until every worker has reached it.
func Barrier() error {
	return submit("Barrier", func() error { return check("MPI_Barrier", C.hg_barrier()) }).Wait()
}

// Abort prints msg on stderr and ends every worker of the job with code
// (MPI_Abort). Where MPI cannot be called from this thread, the process
// exits with code and mpirun ends the others.
func Abort(code int, msg string) {
	fmt.Fprintln(os.Stderr, msg)
	if Initialized() && level == C.hg_thread_multiple() {
		C.hg_abort(C.int(code))
	}
	os.Exit(code)
}
