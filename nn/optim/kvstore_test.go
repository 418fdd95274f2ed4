package optim_test

import (
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/mpi"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/nn/optim"
)

// twinStore stands for n workers that all computed the same gradients:
// an allreduce multiplies by n. It records the size of each call.
type twinStore struct {
	n          int
	calls      []int
	broadcasts int
}

type done struct{}

func (done) Wait() error { return nil }

func (s *twinStore) Type() string    { return "twin" }
func (s *twinStore) Rank() int       { return 0 }
func (s *twinStore) NumWorkers() int { return s.n }
func (s *twinStore) StartAllreduce(data any) optim.Waiter {
	d := data.([]float32)
	for i := range d {
		d[i] *= float32(s.n)
	}
	s.calls = append(s.calls, len(d))
	return done{}
}
func (s *twinStore) Broadcast(data any, root int) error { s.broadcasts++; return nil }
func (s *twinStore) Barrier() error                     { return nil }
func (s *twinStore) Close() error                       { return nil }

// Two workers with the same gradients on batches of 2 step as one
// process on a batch of 4 with twice the gradient: the same update.
func TestTrainerStoreAveragesOverWorkers(t *testing.T) {
	for _, scaleLR := range []bool{false, true} {
		b := newScaleShift()
		setParam(t, b.A, []float32{1, 2}, []float32{4, -8})
		setParam(t, b.B, []float32{0, 0}, []float32{2, 2})
		st := &twinStore{n: 2}
		tr, err := optim.NewTrainer(b.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 0.5}), optim.TrainerOptions{Store: st, ScaleLR: scaleLR})
		if err != nil {
			t.Fatal(err)
		}
		if tr.NumWorkers() != 2 || tr.Rank() != 0 || tr.KVStore() != st {
			t.Fatalf("workers %d rank %d store %v", tr.NumWorkers(), tr.Rank(), tr.KVStore())
		}
		if err := tr.Step(2); err != nil {
			t.Fatal(err)
		}
		// The gradient sum is 2g over 2*2 samples: g/2 per sample, as one
		// worker's Step(2); ScaleLR doubles the rate.
		lr := 0.5
		if scaleLR {
			lr = 1
		}
		assertValues(t, "a", b.A.Data(), []float64{1 - lr*2, 2 + lr*4})
		assertValues(t, "b", b.B.Data(), []float64{-lr, -lr})
		// The constant is broadcast too; the two parameters travel in one
		// bucket.
		if st.broadcasts != 3 || len(st.calls) != 1 || st.calls[0] != 4 {
			t.Errorf("broadcasts %d, allreduce calls %v; want 3 and [4]", st.broadcasts, st.calls)
		}
		if err := tr.Step(2); err != nil {
			t.Fatal(err)
		}
		if st.broadcasts != 3 {
			t.Errorf("the second step broadcast again: %d", st.broadcasts)
		}
	}
}

// A bucket holds as many gradients as fit in BucketBytes, at least one.
func TestTrainerBuckets(t *testing.T) {
	b := newScaleShift()
	setParam(t, b.A, []float32{1, 2}, []float32{1, 1})
	setParam(t, b.B, []float32{0, 0}, []float32{1, 1})
	st := &twinStore{n: 3}
	tr, err := optim.NewTrainer(b.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 0.1}), optim.TrainerOptions{Store: st, BucketBytes: 4})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Step(1); err != nil {
		t.Fatal(err)
	}
	if len(st.calls) != 2 || st.calls[0] != 2 || st.calls[1] != 2 {
		t.Errorf("allreduce calls %v, want [2 2]", st.calls)
	}
	assertValues(t, "a", b.A.Data(), []float64{0.9, 1.9})
	if _, err := optim.NewTrainer(b.CollectParams(), optim.NewSGD(optim.SGDOptions{}), optim.TrainerOptions{BucketBytes: -1}); err == nil {
		t.Error("a negative bucket size was accepted")
	}
}

func TestNewKVStore(t *testing.T) {
	for _, name := range []string{"", "local"} {
		if s, err := optim.NewKVStore(name); s != nil || err != nil {
			t.Errorf("%q: %v, %v; want no store", name, s, err)
		}
	}
	for _, name := range []string{"dist_async", "nccl", "bogus"} {
		if _, err := optim.NewKVStore(name); err == nil || !strings.Contains(err.Error(), "dist_sync") {
			t.Errorf("%q: %v", name, err)
		}
	}
	if mpi.Built {
		return // the mpi tests start it under mpirun
	}
	for _, name := range []string{"dist_sync", "horovod"} {
		_, err := optim.NewKVStore(name)
		if err == nil || !strings.Contains(err.Error(), "go build -tags mpi ./cmd/hybridgo") || !strings.Contains(err.Error(), "libopenmpi-dev") {
			t.Errorf("%q without MPI: %v", name, err)
		}
		_, err = optim.NewTrainer(newScaleShift().CollectParams(), optim.NewSGD(optim.SGDOptions{}), optim.TrainerOptions{KVStore: name})
		if err == nil || !strings.Contains(err.Error(), "-tags mpi") {
			t.Errorf("trainer with %q without MPI: %v", name, err)
		}
	}
}

// With Overlap, a layer-by-layer backward pass starts the allreduces
// itself (from the second step on, once the buckets are planned), and
// the update is the one without it.
func TestTrainerOverlap(t *testing.T) {
	run := func(overlap bool) ([]float64, []int) {
		eager.Seed(3)
		net := nn.NewHybridSequential(nn.NewDense(5, nn.DenseOptions{Act: "relu", InUnits: 3}), nn.NewDense(2, nn.DenseOptions{InUnits: 5}))
		if err := net.Initialize(); err != nil {
			t.Fatal(err)
		}
		st := &twinStore{n: 2}
		tr, err := optim.NewTrainer(net.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 0.1}), optim.TrainerOptions{Store: st, Overlap: overlap, BucketBytes: 40})
		if err != nil {
			t.Fatal(err)
		}
		x := eager.RandomNormal(4, 3)
		var during []int
		for range 3 {
			var l *eager.NDArray
			eager.Record(func() { l = eager.F.Sum(net.Forward(x)).(*eager.NDArray) })
			before := len(st.calls)
			if err := l.Backward(); err != nil {
				t.Fatal(err)
			}
			during = append(during, len(st.calls)-before)
			if err := tr.Step(4); err != nil {
				t.Fatal(err)
			}
		}
		var w []float64
		for _, p := range net.CollectParams().List() {
			w = append(w, p.Data().Float64s()...)
		}
		return w, during
	}
	want, during := run(false)
	if during[1] != 0 || during[2] != 0 {
		t.Errorf("allreduce calls during backward without Overlap: %v", during)
	}
	got, during := run(true)
	// 4 parameters of 15, 5, 10 and 2 floats in 40-byte buckets: [2] [10]
	// [5] [15], all started in the backward pass from the second step on.
	if during[0] != 0 || during[1] != 4 || during[2] != 4 {
		t.Errorf("allreduce calls during backward with Overlap: %v, want [0 4 4]", during)
	}
	assertValues(t, "parameters with Overlap", eager.Array(got, len(got)), want)
}

// Overlap needs one backward pass per Step: a second one would change
// gradients already on their way.
func TestTrainerOverlapTwoBackwardsIsAnError(t *testing.T) {
	net := nn.NewHybridSequential(nn.NewDense(2, nn.DenseOptions{InUnits: 3}))
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	tr, err := optim.NewTrainer(net.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 0.1}), optim.TrainerOptions{Store: &twinStore{n: 2}, Overlap: true})
	if err != nil {
		t.Fatal(err)
	}
	x := eager.RandomNormal(4, 3)
	backward := func() {
		var l *eager.NDArray
		eager.Record(func() { l = eager.F.Sum(net.Forward(x)).(*eager.NDArray) })
		if err := l.Backward(); err != nil {
			t.Fatal(err)
		}
	}
	backward()
	if err := tr.Step(4); err != nil {
		t.Fatal(err)
	}
	backward()
	backward()
	if err := tr.Step(4); err == nil || !strings.Contains(err.Error(), "one backward pass per Step") {
		t.Errorf("two backward passes: %v", err)
	}
	backward()
	if err := tr.Step(4); err != nil {
		t.Errorf("the step after: %v", err)
	}
}

// Clipping sees the averaged gradients: two identical workers clip as
// one process does.
func TestTrainerStoreClipsTheAverage(t *testing.T) {
	run := func(st optim.KVStore) []float64 {
		b := newScaleShift()
		setParam(t, b.A, []float32{1, 2}, []float32{30, -40})
		setParam(t, b.B, []float32{0, 0}, []float32{0, 0})
		tr, err := optim.NewTrainer(b.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 1}), optim.TrainerOptions{Store: st, ClipGradient: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Step(5); err != nil {
			t.Fatal(err)
		}
		return b.A.Data().Float64s()
	}
	want := run(nil) // gradient (6, -8) per sample, norm 10, clipped to 1
	assertValues(t, "one process", eager.Array(want, 2), []float64{1 - 0.6, 2 + 0.8})
	assertValues(t, "two workers", eager.Array(run(&twinStore{n: 2}), 2), want)
}
