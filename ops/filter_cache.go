package ops

import (
	"bytes"
	"sync"
	"unsafe"

	"github.com/hybridgo/hybridgo/accel"
)

// The transformed filters of recent Winograd convolutions outside
// training (G g Gᵀ, packed for the products), kept so that a network
// called again with the same parameters does not transform them again.
// (Filters merely packed for a product are not kept: checking them costs
// as much as packing them.)
//
// An array's values can change in place at any time (a trainer's step,
// a user's assignment), and nothing counts such changes, so an entry is
// keyed by the filters' address and size and holds a copy of the values
// it was made from: it is used only when the filters still hold exactly
// those values, bit for bit. Filters are cached the second time the same values are
// seen. Training-mode calls do not use the cache at all. Entries are
// never written once published (a changed filter gets a new entry), so
// a caller may keep using the transform it was handed. The least recently
// used entries go when the cache holds more than filterCacheMax bytes.

// filterCacheMax bounds the bytes of the cached filters and their copies.
const filterCacheMax = 256 << 20

// filterKey identifies a convolution's filters: their first element's
// address, their length and the plan's sizes.
type filterKey struct {
	first             uintptr // the address of the filters' first element
	n, maps, channels int
}

// filterEntry is one cached transform.
type filterEntry struct {
	values any // a copy of the filters the transform was made from ([]T)
	out    any // the transform ([]T); nil until the values are seen twice
	bytes  int
	used   uint64
}

// filterCacheType is the cache's type: its entries, their bytes, and a
// clock that orders their uses.
type filterCacheType struct {
	sync.Mutex
	entries map[filterKey]*filterEntry
	bytes   int
	clock   uint64
}

var filterCache = filterCacheType{entries: map[filterKey]*filterEntry{}}

// cachedWinogradFilters returns the Winograd transform of p's filters in
// weight (accel.WinogradFilters) from the cache, or nil when the cache
// does not hold it: the first time these values come, it remembers them;
// the second time, it transforms them and keeps the result.
func cachedWinogradFilters[T accel.Float](p convPlan, weight []T) []T {
	c := p.geom.Channels
	weight = weight[:p.maps*c*9]
	key := filterKey{first: uintptr(unsafe.Pointer(&weight[0])), n: len(weight), maps: p.maps, channels: c}
	size := int(unsafe.Sizeof(weight[0]))
	fc := &filterCache
	fc.Lock()
	fc.clock++
	e := fc.entries[key]
	var seen bool
	if e != nil {
		values, ok := e.values.([]T)
		seen = ok && sameBits(values, weight)
	}
	if seen && e.out != nil {
		e.used = fc.clock
		out := e.out.([]T)
		fc.Unlock()
		return out
	}
	if !seen {
		values := make([]T, len(weight))
		copy(values, weight)
		fc.put(key, &filterEntry{values: values, bytes: len(values) * size, used: fc.clock})
		fc.Unlock()
		return nil
	}
	fc.Unlock()
	n := accel.WinogradFiltersLen[T](p.maps, c)
	out := accel.MakeLarge[T](n, n)
	accel.WinogradFilters(p.maps, c, false, weight, out)
	fc.Lock()
	if cur := fc.entries[key]; cur == e {
		fc.put(key, &filterEntry{values: e.values, out: out, bytes: e.bytes + len(out)*size, used: fc.clock})
	}
	fc.Unlock()
	return out
}

// sameBits reports whether a and b hold the same values, bit for bit.
func sameBits[T accel.Float](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	n := len(a) * int(unsafe.Sizeof(a[0]))
	return bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), n), unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), n))
}

// put stores e under key, replacing what was there, then drops the least
// recently used entries while the cache is over filterCacheMax. The
// caller holds the lock.
func (fc *filterCacheType) put(key filterKey, e *filterEntry) {
	if old := fc.entries[key]; old != nil {
		fc.bytes -= old.bytes
	}
	fc.entries[key] = e
	fc.bytes += e.bytes
	for fc.bytes > filterCacheMax && len(fc.entries) > 1 {
		var oldest filterKey
		least := ^uint64(0)
		for k, x := range fc.entries {
			if x.used < least && k != key {
				oldest, least = k, x.used
			}
		}
		fc.bytes -= fc.entries[oldest].bytes
		delete(fc.entries, oldest)
	}
}
