//go:build mpi && cgo

package mpi

import (
	"strings"
	"testing"
)

// Without mpirun, MPI starts a job of one process (a singleton): sums
// and broadcasts leave the data as it is.
func TestSingleton(t *testing.T) {
	if err := Init(); err != nil {
		t.Fatal(err)
	}
	if !Built || !Initialized() || Rank() != 0 || Size() != 1 || ThreadLevel() != "multiple" {
		t.Fatalf("built %v, initialized %v, rank %d of %d, threads %s", Built, Initialized(), Rank(), Size(), ThreadLevel())
	}
	f32, f64 := []float32{1, 2}, []float64{3}
	r := Start(f32)
	if err := Allreduce(f64); err != nil {
		t.Fatal(err)
	}
	if err := r.Wait(); err != nil || f32[0] != 1 || f32[1] != 2 || f64[0] != 3 {
		t.Errorf("after allreduce: %v %v %v", err, f32, f64)
	}
	if err := Bcast(f32, 0); err != nil {
		t.Fatal(err)
	}
	if err := Barrier(); err != nil {
		t.Fatal(err)
	}
	if err := Start([]int{1}).Wait(); err == nil || !strings.Contains(err.Error(), "[]float32 or []float64") {
		t.Errorf("allreduce of ints: %v", err)
	}
	if err := Start([]float32{}).Wait(); err != nil {
		t.Errorf("empty allreduce: %v", err)
	}
	if err := Finalize(); err != nil {
		t.Fatal(err)
	}
	if Initialized() {
		t.Error("still initialized after Finalize")
	}
	if err := Init(); err == nil {
		t.Error("Init after Finalize succeeded")
	}
	if err := Barrier(); err == nil {
		t.Error("Barrier after Finalize succeeded")
	}
}
