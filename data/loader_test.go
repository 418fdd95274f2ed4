package data

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hybridgo/hybridgo/eager"
)

// indexed returns a dataset of n samples (x of shape (2,) holding 2i and
// 2i+1, and the label i), so a batch's labels say which samples it holds.
func indexed(n int) *ArrayDataset {
	lab := make([]float32, n)
	for i := range lab {
		lab[i] = float32(i)
	}
	ds, err := NewArrayDataset(seq(n, 2), eager.Array(lab))
	if err != nil {
		panic(err)
	}
	return ds
}

// epoch runs one epoch and returns the labels of each batch.
func epoch(t *testing.T, l *DataLoader) [][]int {
	t.Helper()
	var out [][]int
	for b, err := range l.Epoch() {
		if err != nil {
			t.Fatal(err)
		}
		var ids []int
		for _, v := range b[1].Float32s() {
			ids = append(ids, int(v))
		}
		out = append(out, ids)
	}
	return out
}

func mustLoader(t *testing.T, d Dataset, o LoaderOptions) *DataLoader {
	t.Helper()
	l, err := NewDataLoader(d, o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLoaderBatchShapes(t *testing.T) {
	x := seq(10, 1, 3, 3)
	ds, _ := NewArrayDataset(x, eager.Array(make([]float32, 10)))
	l := mustLoader(t, ds, LoaderOptions{BatchSize: 4})
	var shapes []string
	for b, err := range l.Epoch() {
		if err != nil {
			t.Fatal(err)
		}
		shapes = append(shapes, b[0].Shape().Tuple()+" "+b[1].Shape().Tuple())
	}
	want := []string{"(4, 1, 3, 3) (4,)", "(4, 1, 3, 3) (4,)", "(2, 1, 3, 3) (2,)"}
	if !slices.Equal(shapes, want) {
		t.Errorf("shapes %v, want %v", shapes, want)
	}
	// Values: the second batch starts at sample 4.
	var second *eager.NDArray
	n := 0
	for b := range l.Epoch() {
		if n == 1 {
			second = b[0]
		}
		n++
	}
	if got := second.At(0, 0, 0, 0); got != 36 {
		t.Errorf("batch 1 starts with %v, want 36", got)
	}
}

func TestLoaderLastBatch(t *testing.T) {
	cases := []struct {
		last    string
		want    [2][]int // batch sizes in epochs 1 and 2
		batches [2]int   // NumBatches before each epoch
	}{
		{"", [2][]int{{4, 4, 2}, {4, 4, 2}}, [2]int{3, 3}},
		{"keep", [2][]int{{4, 4, 2}, {4, 4, 2}}, [2]int{3, 3}},
		{"discard", [2][]int{{4, 4}, {4, 4}}, [2]int{2, 2}},
		{"rollover", [2][]int{{4, 4}, {4, 4, 4}}, [2]int{2, 3}},
	}
	for _, c := range cases {
		for _, shuffle := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/shuffle=%v", c.last, shuffle), func(t *testing.T) {
				l := mustLoader(t, indexed(10), LoaderOptions{BatchSize: 4, LastBatch: c.last, Shuffle: shuffle, Seed: 3})
				var all [][]int
				for e := range 2 {
					if got := l.NumBatches(); got != c.batches[e] {
						t.Errorf("epoch %d: NumBatches = %d, want %d", e, got, c.batches[e])
					}
					bs := epoch(t, l)
					var sizes []int
					for _, b := range bs {
						sizes = append(sizes, len(b))
					}
					if !slices.Equal(sizes, c.want[e]) {
						t.Errorf("epoch %d: batch sizes %v, want %v", e, sizes, c.want[e])
					}
					all = append(all, bs...)
				}
				if c.last == "rollover" {
					// Epoch 1 leaves 2 samples over; epoch 2 starts with them.
					first := epoch1Leftover(t, c.last, shuffle)
					if !slices.Equal(all[2][:2], first) {
						t.Errorf("epoch 2 starts with %v, want the carried samples %v", all[2][:2], first)
					}
				}
			})
		}
	}
}

// epoch1Leftover returns the samples a fresh loader's first epoch leaves
// over, by running a "keep" loader with the same order.
func epoch1Leftover(t *testing.T, _ string, shuffle bool) []int {
	l := mustLoader(t, indexed(10), LoaderOptions{BatchSize: 4, Shuffle: shuffle, Seed: 3})
	bs := epoch(t, l)
	return bs[len(bs)-1]
}

func flatten(bs [][]int) []int {
	var out []int
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

func TestLoaderShuffle(t *testing.T) {
	const n = 50
	l := mustLoader(t, indexed(n), LoaderOptions{BatchSize: 7, Shuffle: true, Seed: 42})
	e1 := flatten(epoch(t, l))
	e2 := flatten(epoch(t, l))
	for i, e := range [][]int{e1, e2} {
		s := slices.Sorted(slices.Values(e))
		for k := range n {
			if s[k] != k {
				t.Fatalf("epoch %d is not a permutation of 0..%d: %v", i, n-1, e)
			}
		}
	}
	if slices.Equal(e1, e2) {
		t.Error("epochs 1 and 2 have the same order")
	}
	if slices.Equal(e1, slices.Sorted(slices.Values(e1))) {
		t.Error("epoch 1 is not shuffled")
	}
	// The same seed repeats the sequence of epochs; another seed does not.
	again := mustLoader(t, indexed(n), LoaderOptions{BatchSize: 7, Shuffle: true, Seed: 42})
	if a1, a2 := flatten(epoch(t, again)), flatten(epoch(t, again)); !slices.Equal(a1, e1) || !slices.Equal(a2, e2) {
		t.Error("the same seed gave different orders")
	}
	other := mustLoader(t, indexed(n), LoaderOptions{BatchSize: 7, Shuffle: true, Seed: 43})
	if slices.Equal(flatten(epoch(t, other)), e1) {
		t.Error("seeds 42 and 43 gave the same order")
	}
	// Without Shuffle the order is the dataset's.
	plain := mustLoader(t, indexed(n), LoaderOptions{BatchSize: 7})
	if e := flatten(epoch(t, plain)); !slices.Equal(e, slices.Sorted(slices.Values(e))) {
		t.Errorf("unshuffled order %v", e)
	}
}

func TestLoaderWorkersSameBatches(t *testing.T) {
	// A transformed dataset takes the sample-by-sample path; the plain
	// ArrayDataset the gathering one. Both must agree with no workers.
	base := indexed(37)
	slow := Transform(base, func(s []*eager.NDArray) ([]*eager.NDArray, error) {
		if int(s[1].Scalar())%5 == 0 {
			time.Sleep(time.Millisecond) // let later batches finish first
		}
		return s, nil
	})
	for _, ds := range []Dataset{base, slow} {
		for _, last := range []string{"keep", "rollover"} {
			opts := LoaderOptions{BatchSize: 3, Shuffle: true, Seed: 9, LastBatch: last}
			serial := mustLoader(t, ds, opts)
			opts.Workers = 4
			par := mustLoader(t, ds, opts)
			for e := range 3 {
				want := epochValues(t, serial)
				got := epochValues(t, par)
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Fatalf("%T %s epoch %d: workers gave\n%v\nno workers gave\n%v", ds, last, e, got, want)
				}
			}
		}
	}
}

// epochValues runs one epoch and returns every batch's values, all fields.
func epochValues(t *testing.T, l *DataLoader) [][]float32 {
	t.Helper()
	var out [][]float32
	for b, err := range l.Epoch() {
		if err != nil {
			t.Fatal(err)
		}
		var v []float32
		for _, f := range b {
			v = append(v, f.Float32s()...)
		}
		out = append(out, v)
	}
	return out
}

// settleGoroutines waits briefly for the goroutine count to come down to
// want (other tests' runtime goroutines may take a moment) and returns it.
func settleGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 100 && n > want; i++ {
		time.Sleep(5 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

func TestLoaderBreakLeaksNothing(t *testing.T) {
	before := runtime.NumGoroutine()
	var reads atomic.Int64
	ds := Transform(indexed(1000), func(s []*eager.NDArray) ([]*eager.NDArray, error) {
		reads.Add(1)
		return s, nil
	})
	l := mustLoader(t, ds, LoaderOptions{BatchSize: 4, Workers: 3})
	for range 5 {
		k := 0
		for _, err := range l.Epoch() {
			if err != nil {
				t.Fatal(err)
			}
			if k++; k == 2 {
				break
			}
		}
		// The workers have returned from their work by the time the loop
		// statement ends; settle only lets the runtime finish their exit.
		if n := settleGoroutines(before); n > before {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines after breaking out, %d before\n%s", n, before, buf[:runtime.Stack(buf, true)])
		}
	}
	// They stopped early: far fewer than all 1000 samples were read per epoch.
	if r := reads.Load(); r > 5*4*(2+2*3+3) {
		t.Errorf("%d samples read; the workers did not stop when the loop broke", r)
	}
	// A panic in the loop body stops them too.
	func() {
		defer func() { recover() }()
		for range l.Epoch() {
			panic("stop")
		}
	}()
	if n := settleGoroutines(before); n > before {
		t.Errorf("%d goroutines after a panic in the loop, %d before", n, before)
	}
	// And a full epoch leaves none behind.
	for range l.Epoch() {
	}
	if n := settleGoroutines(before); n > before {
		t.Errorf("%d goroutines after a full epoch, %d before", n, before)
	}
}

func TestLoaderErrors(t *testing.T) {
	ds := indexed(5)
	for _, o := range []LoaderOptions{{BatchSize: 0}, {BatchSize: -1}, {BatchSize: 2, LastBatch: "drop"}, {BatchSize: 2, Workers: -1}} {
		if _, err := NewDataLoader(ds, o); err == nil {
			t.Errorf("no error for %+v", o)
		}
	}
	if _, err := NewDataLoader(nil, LoaderOptions{BatchSize: 1}); err == nil {
		t.Error("no error for a nil dataset")
	}

	// A failing sample ends the epoch with its error, with and without workers.
	boom := errors.New("boom")
	bad := Transform(ds, func(s []*eager.NDArray) ([]*eager.NDArray, error) {
		if s[1].Scalar() == 3 {
			return nil, boom
		}
		return s, nil
	})
	panicky := Transform(ds, func(s []*eager.NDArray) ([]*eager.NDArray, error) {
		if s[1].Scalar() == 3 {
			eager.F.Add(eager.Zeros(2), eager.Zeros(3)) // bad shapes: the op panics
		}
		return s, nil
	})
	for _, d := range []Dataset{bad, panicky} {
		for _, w := range []int{0, 2} {
			l := mustLoader(t, d, LoaderOptions{BatchSize: 2, Workers: w})
			good, errs := 0, 0
			for b, err := range l.Epoch() {
				if err != nil {
					errs++
					if b != nil {
						t.Error("a batch came with the error")
					}
					continue
				}
				good++
			}
			if good != 1 || errs != 1 {
				t.Errorf("workers=%d: %d batches and %d errors, want 1 and 1 (the error ends the epoch)", w, good, errs)
			}
		}
	}
}

func BenchmarkLoaderEpoch(b *testing.B) {
	ds, _ := NewArrayDataset(eager.Zeros(6000, 1, 28, 28), eager.Zeros(6000))
	for _, w := range []int{0, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			l, _ := NewDataLoader(ds, LoaderOptions{BatchSize: 64, Shuffle: true, Workers: w})
			for b.Loop() {
				for range l.Epoch() {
				}
			}
		})
	}
}

// Each shard holds every NumShards-th sample of the epoch's order; the
// shards' batches together are the unsharded loader's batches, and an
// epoch of 10 samples over 3 shards is padded with its first two.
func TestLoaderShards(t *testing.T) {
	const n, shards = 10, 3
	ds, err := NewArrayDataset(eager.Arange(0, n, 1))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := NewDataLoader(ds, LoaderOptions{BatchSize: 6, Shuffle: true, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	var wholeBatches [][]float64
	for b, err := range whole.Epoch() {
		if err != nil {
			t.Fatal(err)
		}
		wholeBatches = append(wholeBatches, b[0].Float64s())
	}
	count := map[float64]int{}
	var perShard [shards][][]float64
	for k := range shards {
		l, err := NewDataLoader(ds, LoaderOptions{BatchSize: 2, Shuffle: true, Seed: 7, NumShards: shards, ShardIndex: k, Workers: k % 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := l.NumBatches(); got != 2 {
			t.Errorf("shard %d: NumBatches %d, want 2", k, got)
		}
		for b, err := range l.Epoch() {
			if err != nil {
				t.Fatal(err)
			}
			perShard[k] = append(perShard[k], b[0].Float64s())
			for _, v := range b[0].Float64s() {
				count[v]++
			}
		}
	}
	if len(count) != n {
		t.Errorf("the shards cover %d samples, want %d: %v", len(count), n, count)
	}
	twice := 0
	for _, c := range count {
		if c == 2 {
			twice++
		}
	}
	if twice != 2 {
		t.Errorf("%d samples appear twice, want 2 (the padding): %v", twice, count)
	}
	// Batch 0 of the shards together is batch 0 of the whole loader.
	var got []float64
	for k := range shards {
		got = append(got, perShard[k][0]...)
	}
	slices.Sort(got)
	want := slices.Clone(wholeBatches[0])
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("first batches of the shards %v, first batch unsharded %v", got, want)
	}
	for _, o := range []LoaderOptions{{BatchSize: 1, NumShards: 2, ShardIndex: 2}, {BatchSize: 1, NumShards: -1}, {BatchSize: 1, ShardIndex: 1}} {
		if _, err := NewDataLoader(ds, o); err == nil || !strings.Contains(err.Error(), "ShardIndex") {
			t.Errorf("%+v: %v", o, err)
		}
	}
}
