package optim

import (
	"fmt"

	"github.com/hybridgo/hybridgo/internal/mpi"
)

// KVStore sums gradients over the workers of a data-parallel job: Gluon's
// kvstore (kvstore.rank, kvstore.num_workers), in the shape Horovod gives
// it. A Trainer with a store allreduces the gradients in Step and
// broadcasts the parameters from rank 0 before its first update.
//
// Every worker must make the same calls in the same order. Allreduce and
// Broadcast take []float32 or []float64 and work in place.
type KVStore interface {
	// Type is the store's name: "dist_sync" for MPI.
	Type() string
	// Rank is this worker's number, 0 to NumWorkers()-1.
	Rank() int
	// NumWorkers is the number of workers in the job.
	NumWorkers() int
	// StartAllreduce starts summing data over the workers in place and
	// returns at once; the data must not be touched until Wait returns.
	StartAllreduce(data any) Waiter
	// Broadcast copies root's data to every worker.
	Broadcast(data any, root int) error
	// Barrier waits until every worker has reached it.
	Barrier() error
	// Close ends the store (MPI_Finalize for MPI); a worker must close it
	// before it exits.
	Close() error
}

// Waiter is a started collective.
type Waiter interface {
	Wait() error
}

// The store names NewKVStore knows.
const (
	KVStoreLocal    = "local"
	KVStoreDistSync = "dist_sync"
	KVStoreHorovod  = "horovod" // an alias of dist_sync
)

// NewKVStore returns the store named name: "dist_sync" (or its alias
// "horovod") sums over the processes that mpirun started, with MPI;
// "local" or "" is a single process and returns nil, no store. The
// distributed store needs a build with the mpi tag (go build -tags mpi
// ./cmd/hybridgo, with OpenMPI installed); without it the error says so.
// The MPI store is one per process: calling NewKVStore again returns
// another handle on the same job.
func NewKVStore(name string) (KVStore, error) {
	switch name {
	case "", KVStoreLocal, "device":
		return nil, nil
	case KVStoreDistSync, KVStoreHorovod, "dist", "dist_sync_device":
		if err := mpi.Init(); err != nil {
			return nil, fmt.Errorf("kvstore %s: %w", name, err)
		}
		return mpiStore{}, nil
	case "dist_async", "nccl":
		return nil, fmt.Errorf("kvstore %q is not supported: use dist_sync (MPI allreduce, as Horovod)", name)
	}
	return nil, fmt.Errorf("unknown kvstore %q (want local or dist_sync; horovod is an alias of dist_sync)", name)
}

// mpiStore is the dist_sync store: MPI_COMM_WORLD.
type mpiStore struct{}

func (mpiStore) Type() string                   { return KVStoreDistSync }
func (mpiStore) Rank() int                      { return mpi.Rank() }
func (mpiStore) NumWorkers() int                { return mpi.Size() }
func (mpiStore) StartAllreduce(data any) Waiter { return mpi.Start(data) }
func (mpiStore) Broadcast(data any, root int) error {
	return mpi.Bcast(data, root)
}
func (mpiStore) Barrier() error { return mpi.Barrier() }
func (mpiStore) Close() error   { return mpi.Finalize() }
