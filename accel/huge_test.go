package accel

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestMakeLarge checks the lengths, capacities and zeros of MakeLarge's
// slices, and on Linux that the large ones start on a huge page.
func TestMakeLarge(t *testing.T) {
	for _, tc := range []struct{ n, c int }{{0, 10}, {10, 10}, {5, 1 << 20}, {1<<19 + 3, 1<<19 + 3}, {3 << 20, 3 << 20}} {
		s := MakeLarge[float32](tc.n, tc.c)
		if len(s) != tc.n || cap(s) != tc.c {
			t.Fatalf("MakeLarge(%d, %d): len %d cap %d", tc.n, tc.c, len(s), cap(s))
		}
		s = s[:tc.c]
		for i, v := range s {
			if v != 0 {
				t.Fatalf("MakeLarge(%d, %d)[%d] = %v, want 0", tc.n, tc.c, i, v)
			}
		}
		if runtime.GOOS == "linux" && tc.c*4 >= hugePage {
			if a := uintptr(unsafe.Pointer(&s[0])); a%hugePage != 0 {
				t.Fatalf("MakeLarge(%d, %d) starts at %#x, not on a huge page", tc.n, tc.c, a)
			}
		}
		s[len(s)-1] = 1 // the whole capacity is writable
	}
}
