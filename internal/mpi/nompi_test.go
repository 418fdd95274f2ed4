//go:build !mpi || !cgo

package mpi

import (
	"errors"
	"testing"
)

func TestWithoutMPI(t *testing.T) {
	if Built || Initialized() || Rank() != 0 || Size() != 1 {
		t.Errorf("built %v, initialized %v, rank %d of %d", Built, Initialized(), Rank(), Size())
	}
	for name, err := range map[string]error{
		"Init": Init(), "Start": Start([]float32{1}).Wait(), "Allreduce": Allreduce([]float64{1}),
		"Bcast": Bcast([]float32{1}, 0), "Barrier": Barrier(),
	} {
		if !errors.Is(err, ErrNotBuilt) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := Finalize(); err != nil {
		t.Errorf("Finalize: %v", err)
	}
}
