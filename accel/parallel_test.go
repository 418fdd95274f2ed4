package accel

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// checkCover runs ParallelFor(n, grain) and checks every index in [0,n) is
// visited exactly once and every chunk but a whole-range one has >= grain items.
func checkCover(t *testing.T, n, grain int) {
	t.Helper()
	hits := make([]atomic.Int32, max(n, 0))
	var bad atomic.Value
	ParallelFor(n, grain, func(lo, hi int) {
		if lo < 0 || hi > n || lo >= hi {
			bad.Store(fmt.Sprintf("bad chunk [%d,%d)", lo, hi))
			return
		}
		if hi-lo < grain && !(lo == 0 && hi == n) {
			bad.Store(fmt.Sprintf("chunk [%d,%d) smaller than grain %d", lo, hi, grain))
		}
		for i := lo; i < hi; i++ {
			hits[i].Add(1)
		}
	})
	if v := bad.Load(); v != nil {
		t.Fatalf("n=%d grain=%d: %v", n, grain, v)
	}
	for i := range hits {
		if c := hits[i].Load(); c != 1 {
			t.Fatalf("n=%d grain=%d: index %d visited %d times", n, grain, i, c)
		}
	}
}

func TestParallelForCoverage(t *testing.T) {
	for _, n := range []int{-3, 0, 1, 2, 3, 7, 16, 100, 1000, 12345} {
		for _, grain := range []int{-1, 0, 1, 2, 3, 10, 64, 5000} {
			checkCover(t, n, grain)
		}
	}
}

func TestParallelForNested(t *testing.T) {
	const outer, inner = 37, 53
	var count atomic.Int64
	seen := make([]atomic.Int32, outer*inner)
	ParallelFor(outer, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ParallelFor(inner, 1, func(lo2, hi2 int) {
				for j := lo2; j < hi2; j++ {
					// A third level for good measure.
					ParallelFor(2, 1, func(a, b int) { count.Add(int64(b - a)) })
					seen[i*inner+j].Add(1)
				}
			})
		}
	})
	for i := range seen {
		if seen[i].Load() != 1 {
			t.Fatalf("pair %d visited %d times", i, seen[i].Load())
		}
	}
	if count.Load() != 2*outer*inner {
		t.Fatalf("innermost count %d, want %d", count.Load(), 2*outer*inner)
	}
}

func TestParallelForConcurrentCallers(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for rep := range 50 {
				n := 100 + 37*g + rep
				var sum atomic.Int64
				ParallelFor(n, 3, func(lo, hi int) {
					s := 0
					for i := lo; i < hi; i++ {
						s += i
					}
					sum.Add(int64(s))
				})
				if want := int64(n * (n - 1) / 2); sum.Load() != want {
					t.Errorf("caller %d: sum %d, want %d", g, sum.Load(), want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestParallelForPanic(t *testing.T) {
	for _, n := range []int{1, 100} { // inline and pooled paths
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Fatalf("n=%d: recovered %v, want boom", n, r)
				}
			}()
			ParallelFor(n, 1, func(lo, hi int) {
				if lo <= n/2 && n/2 < hi {
					panic("boom")
				}
			})
			t.Fatalf("n=%d: ParallelFor returned normally", n)
		}()
	}
	// The pool still works after a panic, and a nested panic reaches the top.
	checkCover(t, 1000, 1)
	func() {
		defer func() {
			if r := recover(); r != "deep" {
				t.Fatalf("nested: recovered %v, want deep", r)
			}
		}()
		ParallelFor(10, 1, func(lo, hi int) {
			ParallelFor(10, 1, func(lo, hi int) {
				if lo == 0 {
					panic("deep")
				}
			})
		})
	}()
}

func TestWorkers(t *testing.T) {
	if Workers() < 1 {
		t.Fatalf("Workers() = %d", Workers())
	}
}

func ExampleParallelFor() {
	// Square 1000 numbers in chunks of at least 100; each chunk writes a
	// disjoint part of out, so no locking is needed.
	out := make([]int, 1000)
	ParallelFor(len(out), 100, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = i * i
		}
	})
	fmt.Println(out[0], out[10], out[999])
	// Output: 0 100 998001
}

func BenchmarkParallelForOverhead(b *testing.B) {
	var sink atomic.Int64
	for b.Loop() {
		ParallelFor(64, 1, func(lo, hi int) { sink.Add(int64(hi - lo)) })
	}
}

// TestParallelForGoexit: a body that ends its goroutine must not shrink the
// pool or hang the caller.
func TestParallelForGoexit(t *testing.T) {
	for range 3 * Workers() {
		done := make(chan struct{})
		go func() {
			defer close(done)
			ParallelFor(64, 1, func(lo, hi int) {
				if lo == 63 || hi == 64 {
					runtime.Goexit()
				}
			})
		}()
		<-done
	}
	checkCover(t, 1000, 1)
}

func TestRunsInline(t *testing.T) {
	if !RunsInline(10, 100) || !RunsInline(0, 0) || !RunsInline(5, 3) {
		t.Errorf("RunsInline says a range of at most one chunk is shared")
	}
	if got, want := RunsInline(1000, 1), Workers() == 1; got != want {
		t.Errorf("RunsInline(1000, 1) = %v with %d workers", got, Workers())
	}
}

// TestClaimRange: an owner claiming from the front and others from the
// back take every chunk of a range once.
func TestClaimRange(t *testing.T) {
	const n = 10000
	var r claimRange
	r.v.Store(n)
	var seen [n]atomic.Int32
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c := r.claim(w > 0)
				if c < 0 {
					return
				}
				seen[c].Add(1)
			}
		}()
	}
	wg.Wait()
	for c := range seen {
		if k := seen[c].Load(); k != 1 {
			t.Fatalf("chunk %d was claimed %d times", c, k)
		}
	}
}
