package mxnet

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// The magic numbers of an NDArray-list file and of one array in it.
const (
	listMagic = 0x112      // kMXAPINDArrayListMagic, the first u64 of the file
	arrayV1   = 0xF993FAC8 // shape with i64 dims, no storage type
	arrayV2   = 0xF993FAC9 // storage type, then the V1 layout
	arrayV3   = 0xF993FACA // V2 with numpy shape semantics (ndim 0 is a scalar)
)

// MaxNDim is the most dims an array in a params file may have. It bounds
// what a shape can make the reader allocate, and it tells a V0 array (whose
// first u32 is its ndim) from garbage.
const MaxNDim = 32

// minArrayBytes is the fewest bytes any array occupies (a V0 array of no
// dims); a claimed array count is checked against it before allocating.
const minArrayBytes = 4

// NamedArray is one entry of an NDArray-list file.
type NamedArray struct {
	Name  string // "arg:dense0_weight", "aux:bn0_moving_mean", "0.weight", or "" in an unnamed list
	Array *eager.NDArray
}

// FormatError reports a params file that cannot be read: where the reader
// was and what it expected there.
type FormatError struct {
	Offset int64  // byte offset in the file of the field at fault
	Index  int    // the array the error is about, or -1 for the list itself
	Name   string // that array's name, when the names could be read
	What   string // what was wrong, or what was expected
}

// Error prints the error as
//
//	params: offset 24: array 0 ("arg:w"): shape has 5 dims of which dim 2 is -3
func (e *FormatError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "params: offset %d: ", e.Offset)
	if e.Index >= 0 {
		fmt.Fprintf(&b, "array %d", e.Index)
		if e.Name != "" {
			fmt.Fprintf(&b, " (%q)", e.Name)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.What)
	return b.String()
}

func formatErr(off int, format string, args ...any) *FormatError {
	return &FormatError{Offset: int64(off), Index: -1, What: fmt.Sprintf(format, args...)}
}

// cursor reads little-endian values from the front of a byte slice. Every
// read first checks that the bytes it needs remain, so a short file gives a
// *FormatError naming the field, never a panic.
type cursor struct {
	data []byte
	off  int
}

func (c *cursor) remaining() int { return len(c.data) - c.off }

// take returns the next n bytes (a sub-slice of the input, not a copy).
func (c *cursor) take(n int, what string) ([]byte, *FormatError) {
	if n < 0 || n > c.remaining() {
		return nil, formatErr(c.off, "truncated: %s needs %d bytes, %d remain", what, n, c.remaining())
	}
	b := c.data[c.off : c.off+n : c.off+n]
	c.off += n
	return b, nil
}

func (c *cursor) u32(what string) (uint32, *FormatError) {
	b, err := c.take(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (c *cursor) i32(what string) (int32, *FormatError) {
	v, err := c.u32(what)
	return int32(v), err
}

func (c *cursor) u64(what string) (uint64, *FormatError) {
	b, err := c.take(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// typeFlag describes one of MXNet's type flags.
type typeFlag struct {
	name string
	size int // bytes per element
}

var typeFlags = map[int32]typeFlag{
	0: {"float32", 4}, 1: {"float64", 8}, 2: {"float16", 2}, 3: {"uint8", 1},
	4: {"int32", 4}, 5: {"int8", 1}, 6: {"int64", 8}, 7: {"bool", 1},
	8: {"int16", 2}, 9: {"uint16", 2}, 10: {"uint32", 4}, 11: {"uint64", 8},
	12: {"bfloat16", 2},
}

// contexts are the device types a file may name; every one loads to cpu(0).
var contexts = map[int32]string{1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}

// arrayHeader is one array as the first pass over the file finds it.
type arrayHeader struct {
	shape ops.Shape
	dtype ops.DType
	raw   []byte // the element bytes, a sub-slice of the input

	// problem is a reason the array cannot be loaded that still let the
	// reader step over it; it is reported once the names are known.
	problem *FormatError
}

// rawShape is a shape as stored: V3 may store ndim -1 (unknown).
type rawShape struct {
	off  int // where the shape starts
	ndim int
	dims []int64
}

// readShape reads "i32 ndim; ndim × i64 dims".
func readShape(c *cursor, what string) (rawShape, *FormatError) {
	s := rawShape{off: c.off}
	nd, err := c.i32(what)
	if err != nil {
		return s, err
	}
	if nd < -1 || nd > MaxNDim {
		return s, formatErr(s.off, "%s has %d dims (want 0 to %d)", what, nd, MaxNDim)
	}
	s.ndim = int(nd)
	if nd <= 0 {
		return s, nil
	}
	if 8*s.ndim > c.remaining() {
		return s, formatErr(c.off, "truncated: %s of %d dims needs %d bytes, %d remain", what, nd, 8*s.ndim, c.remaining())
	}
	b, err := c.take(8*s.ndim, what)
	if err != nil {
		return s, err
	}
	s.dims = make([]int64, s.ndim)
	for i := range s.dims {
		s.dims[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return s, nil
}

// unknown reports whether a V3 shape is unknown (MXNet's !shape_is_known):
// ndim -1 or some dim -1. Such an array is a "none" array.
func (s rawShape) unknown() bool {
	if s.ndim == -1 {
		return true
	}
	for _, d := range s.dims {
		if d == -1 {
			return true
		}
	}
	return false
}

// known turns the stored dims into a shape, rejecting negative dims and
// element counts that overflow an int.
func (s rawShape) known(what string) (ops.Shape, int, *FormatError) {
	if s.ndim < 0 {
		return nil, 0, formatErr(s.off, "%s has %d dims", what, s.ndim)
	}
	shape := make(ops.Shape, s.ndim)
	n, zero := 1, false
	for i, d := range s.dims {
		if d < 0 {
			return nil, 0, formatErr(s.off, "%s has %d dims of which dim %d is %d", what, s.ndim, i, d)
		}
		if d > math.MaxInt {
			return nil, 0, formatErr(s.off, "%s has dim %d of %d, too large for this platform", what, i, d)
		}
		shape[i] = int(d)
		if d == 0 {
			zero = true
			continue
		}
		if n > math.MaxInt/int(d) {
			return nil, 0, formatErr(s.off, "%s %v has an element count that overflows", what, s.dims)
		}
		n *= int(d)
	}
	if zero {
		n = 0
	}
	return shape, n, nil
}

// takeElements steps over n elements of size bytes each, checking the
// byte count against what remains before any arithmetic could overflow.
func takeElements(c *cursor, n, size int, what string) ([]byte, *FormatError) {
	if size > 0 && n > c.remaining()/size {
		return nil, formatErr(c.off, "truncated: %s needs %d elements of %d bytes, %d bytes remain", what, n, size, c.remaining())
	}
	return c.take(n*size, what)
}

// readTypeFlag reads an i32 type flag; a flag with no known element size
// is an error, since the reader could not step over the data.
func readTypeFlag(c *cursor, what string) (int32, typeFlag, *FormatError) {
	off := c.off
	f, err := c.i32(what)
	if err != nil {
		return 0, typeFlag{}, err
	}
	tf, ok := typeFlags[f]
	if !ok {
		return 0, typeFlag{}, formatErr(off, "%s %d is unknown (want 0 to 12)", what, f)
	}
	return f, tf, nil
}

// scanArray reads one array's header and steps over its data.
//
// keep says whether the caller keeps the header: when it does not (an
// earlier array already failed), no problem is built for this one, so a
// file of many tiny bad arrays costs no more than its own bytes to scan.
func scanArray(c *cursor, keep bool) (arrayHeader, *FormatError) {
	var h arrayHeader
	start := c.off
	magic, err := c.u32("the array magic")
	if err != nil {
		return h, err
	}
	var shape rawShape
	switch magic {
	case arrayV1, arrayV2, arrayV3:
		if magic != arrayV1 {
			stOff := c.off
			stype, err := c.i32("the storage type")
			if err != nil {
				return h, err
			}
			switch stype {
			case 0:
			case 1, 2:
				return scanSparse(c, stOff, stype, magic == arrayV3, keep)
			default:
				return h, formatErr(stOff, "storage type %d is unknown (want 0 dense, 1 row_sparse or 2 csr)", stype)
			}
		}
		if shape, err = readShape(c, "shape"); err != nil {
			return h, err
		}
	default:
		if magic > MaxNDim {
			return h, formatErr(start, "unknown array magic 0x%08X (want 0xF993FAC8 V1, 0xF993FAC9 V2, 0xF993FACA V3, or a V0 ndim of at most %d)", magic, MaxNDim)
		}
		// V0: the magic was the ndim, and the dims are u32.
		ndim := int(magic)
		if 4*ndim > c.remaining() {
			return h, formatErr(c.off, "truncated: the V0 shape of %d dims needs %d bytes, %d remain", ndim, 4*ndim, c.remaining())
		}
		b, err := c.take(4*ndim, "the V0 shape")
		if err != nil {
			return h, err
		}
		shape = rawShape{off: start, ndim: ndim, dims: make([]int64, ndim)}
		for i := range shape.dims {
			shape.dims[i] = int64(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}

	// A "none" array: nothing follows its shape.
	if magic == arrayV3 && shape.unknown() {
		if keep {
			h.problem = formatErr(shape.off, "a none array (unknown shape, ndim %d, dims %v) cannot be loaded", shape.ndim, shape.dims)
		}
		return h, nil
	}
	if magic != arrayV3 && shape.ndim == 0 {
		if keep {
			h.problem = formatErr(shape.off, "a none array (ndim 0) cannot be loaded")
		}
		return h, nil
	}
	var n int
	if h.shape, n, err = shape.known("shape"); err != nil {
		return h, err
	}

	ctxOff := c.off
	devType, err := c.i32("the context device type")
	if err != nil {
		return h, err
	}
	if _, err := c.i32("the context device id"); err != nil {
		return h, err
	}
	if _, ok := contexts[devType]; !ok && keep {
		h.problem = formatErr(ctxOff, "context device type %d is unknown (want 1 cpu, 2 gpu, 3 cpu_pinned or 5 cpu_shared)", devType)
	}

	flagOff := c.off
	flag, tf, err := readTypeFlag(c, "type flag")
	if err != nil {
		return h, err
	}
	h.dtype = ops.DType(flag)
	if !h.dtype.Supported() && h.problem == nil && keep {
		h.problem = formatErr(flagOff, "type flag %d (%s) has no kernels in hybridgo (want float32, float64, uint8, int8, int32, int64 or bool)", flag, tf.name)
	}
	if h.raw, err = takeElements(c, n, tf.size, "the data"); err != nil {
		return h, err
	}
	return h, nil
}

// scanSparse steps over a row_sparse or csr array (which cannot be
// loaded) so that the names after it can be read and the error can name it.
func scanSparse(c *cursor, stOff int, stype int32, v3, keep bool) (arrayHeader, *FormatError) {
	var h arrayHeader
	kind, nAux := "row_sparse", 1
	if stype == 2 {
		kind, nAux = "csr", 2
	}
	if keep {
		h.problem = formatErr(stOff, "storage type %d (%s) is not supported; only dense arrays load", stype, kind)
	}

	sshape, err := readShape(c, "storage shape")
	if err != nil {
		return h, err
	}
	_, sn, err := sshape.known("storage shape")
	if err != nil {
		return h, err
	}
	shape, err := readShape(c, "shape")
	if err != nil {
		return h, err
	}
	if (v3 && shape.unknown()) || (!v3 && shape.ndim == 0) {
		return h, nil // a none array: nothing follows
	}
	if _, _, err := shape.known("shape"); err != nil {
		return h, err
	}
	if _, err := c.take(8, "the context"); err != nil {
		return h, err
	}
	_, tf, err := readTypeFlag(c, "type flag")
	if err != nil {
		return h, err
	}
	auxSize := make([]int, nAux)
	auxN := make([]int, nAux)
	for i := range nAux {
		_, auxTF, err := readTypeFlag(c, "aux type flag")
		if err != nil {
			return h, err
		}
		auxSize[i] = auxTF.size
		as, err := readShape(c, "aux shape")
		if err != nil {
			return h, err
		}
		if _, auxN[i], err = as.known("aux shape"); err != nil {
			return h, err
		}
	}
	if _, err := takeElements(c, sn, tf.size, "the sparse data"); err != nil {
		return h, err
	}
	for i := range nAux {
		if _, err := takeElements(c, auxN[i], auxSize[i], "the aux data"); err != nil {
			return h, err
		}
	}
	return h, nil
}

// DecodeParams reads the bytes of a whole NDArray-list file (what MXNet's
// nd.save, export and save_parameters write).
//
// It accepts arrays in the V0, V1, V2 and V3 layouts, in any context (every
// array loads to cpu(0)), of dense storage and of a dtype with kernels:
// float32, float64, uint8, int8, int32, int64 and bool (a bool byte other
// than 0 reads as true). A V3 array of ndim 0 is a scalar (shape ()).
// Row_sparse and csr arrays, float16 and the other type flags without
// kernels, unknown device types, and "none" arrays (ndim 0 before V3, an
// unknown shape in V3) are errors naming the array's index and name. The
// names section holds either no names (an unnamed list: every Name is "")
// or one per array; bytes after it are an error.
//
// The input is untrusted: every count and length is checked against the
// bytes that remain before anything is allocated for it, ndim is capped at
// MaxNDim, and negative dims and overflowing element counts are rejected.
// The memory DecodeParams allocates is therefore proportional to len(data)
// (the element slices together are at most len(data) bytes). Every error
// is a *FormatError, and malformed input never panics.
func DecodeParams(data []byte) ([]NamedArray, error) {
	c := &cursor{data: data}
	magic, err := c.u64("the list magic")
	if err != nil {
		return nil, err
	}
	if magic != listMagic {
		return nil, formatErr(0, "list magic is 0x%X, want 0x112 (an MXNet NDArray list)", magic)
	}
	if _, err := c.u64("the reserved field"); err != nil {
		return nil, err
	}
	nOff := c.off
	n64, err := c.u64("the array count")
	if err != nil {
		return nil, err
	}
	if n64 > uint64(c.remaining()/minArrayBytes) {
		return nil, formatErr(nOff, "the list claims %d arrays but only %d bytes remain (each array takes at least %d)", n64, c.remaining(), minArrayBytes)
	}
	n := int(n64)
	// The headers are kept only up to the first array that cannot be
	// loaded; the arrays after it are still stepped over to reach the names,
	// which the error reports.
	headers := make([]arrayHeader, 0, min(n, 1024))
	var problem *FormatError
	for i := range n {
		h, err := scanArray(c, problem == nil)
		if err != nil {
			err.Index = i
			return nil, err
		}
		if problem == nil {
			if h.problem != nil {
				problem = h.problem
				problem.Index = i
			}
			headers = append(headers, h)
		}
	}

	kOff := c.off
	k, err := c.u64("the name count")
	if err != nil {
		return nil, err
	}
	if k != 0 && k != n64 {
		return nil, formatErr(kOff, "the list has %d names for %d arrays (want 0 or %d)", k, n, n)
	}
	var names []string // nil in an unnamed list
	if k > 0 {
		names = make([]string, n)
	}
	for i := range int(k) {
		lenOff := c.off
		l, err := c.u64("a name length")
		if err != nil {
			return nil, err
		}
		if l > uint64(c.remaining()) {
			return nil, formatErr(lenOff, "name %d claims %d bytes but only %d remain", i, l, c.remaining())
		}
		b, err := c.take(int(l), "a name")
		if err != nil {
			return nil, err
		}
		names[i] = string(b)
	}
	if c.remaining() > 0 {
		return nil, formatErr(c.off, "%d bytes follow the names section (the file should end here)", c.remaining())
	}

	if problem != nil {
		if names != nil {
			problem.Name = names[problem.Index]
		}
		return nil, problem
	}
	out := make([]NamedArray, n)
	for i, h := range headers {
		v := ops.Value{Shape: h.shape, DType: h.dtype, Data: ops.DecodeLittleEndian(h.dtype, h.raw)}
		out[i].Array = eager.FromValue(v)
		if names != nil {
			out[i].Name = names[i]
		}
	}
	return out, nil
}

// writer appends little-endian values to a byte slice.
type writer struct{ buf []byte }

func (w *writer) u32(v uint32) { w.buf = binary.LittleEndian.AppendUint32(w.buf, v) }
func (w *writer) i32(v int32)  { w.u32(uint32(v)) }
func (w *writer) u64(v uint64) { w.buf = binary.LittleEndian.AppendUint64(w.buf, v) }
func (w *writer) i64(v int64)  { w.u64(uint64(v)) }

// EncodeParams writes the list in MXNet's V2 layout: every array dense, in
// context cpu(0). The names section holds one name per array when any entry
// has a name (an entry without one is written as ""), and none otherwise.
// The result is deterministic: the same list gives the same bytes.
//
// An entry with a nil array, a dtype without kernels (float16 included), a
// 0-dim (scalar) array, which V2 cannot represent (reshape it to (1,)), or
// more than MaxNDim dims is an error naming the entry.
func EncodeParams(list []NamedArray) ([]byte, error) {
	named := false
	size := 4 * 8 // list magic, reserved, array count, name count
	for i, e := range list {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("params: cannot encode entry %d (%q): %s", i, e.Name, fmt.Sprintf(format, args...))
		}
		if e.Array == nil {
			return nil, fail("the array is nil")
		}
		dt, shape := e.Array.DType(), e.Array.Shape()
		if !dt.Supported() {
			return nil, fail("dtype %v (type flag %d) has no kernels and is not written", dt, int(dt))
		}
		if got, ok := ops.DTypeOfData(e.Array.Data()); !ok || got != dt {
			return nil, fail("the data is a %T, not %v values", e.Array.Data(), dt)
		}
		if len(shape) == 0 {
			return nil, fail("a 0-dim array cannot be written in the V2 layout (ndim 0 means none there); reshape it to (1,)")
		}
		if len(shape) > MaxNDim {
			return nil, fail("shape has %d dims (at most %d)", len(shape), MaxNDim)
		}
		for j, d := range shape {
			if d < 0 {
				return nil, fail("shape %v has a negative dim %d", shape, j)
			}
		}
		if n := ops.DataLen(e.Array.Data()); n != shape.Size() {
			return nil, fail("%d values for shape %v", n, shape)
		}
		if e.Name != "" {
			named = true
		}
		size += 4 + 4 + 4 + 8*len(shape) + 8 + 4 + shape.Size()*dt.Size()
	}
	if named {
		for _, e := range list {
			size += 8 + len(e.Name)
		}
	}

	w := &writer{buf: make([]byte, 0, size)}
	w.u64(listMagic)
	w.u64(0)
	w.u64(uint64(len(list)))
	for _, e := range list {
		shape := e.Array.Shape()
		w.u32(arrayV2)
		w.i32(0) // dense
		w.i32(int32(len(shape)))
		for _, d := range shape {
			w.i64(int64(d))
		}
		w.i32(1) // cpu
		w.i32(0) // device 0
		w.i32(int32(e.Array.DType()))
		w.buf = ops.AppendLittleEndian(w.buf, e.Array.Data())
	}
	if named {
		w.u64(uint64(len(list)))
		for _, e := range list {
			w.u64(uint64(len(e.Name)))
			w.buf = append(w.buf, e.Name...)
		}
	} else {
		w.u64(0)
	}
	return w.buf, nil
}

// SaveParams encodes the list (as EncodeParams) and writes it to path
// atomically: into a temporary file in the same directory, synced to disk,
// then renamed over path. Any failure (the list cannot be encoded, the
// temporary file cannot be made or written) leaves an existing file at path
// as it was. A new file gets mode 0644; a replaced one keeps its mode.
func SaveParams(path string, list []NamedArray) error {
	data, err := EncodeParams(list)
	if err != nil {
		return err
	}
	if err := writeFile(path, data); err != nil {
		return fmt.Errorf("save params %s: %w", path, err)
	}
	return nil
}

// LoadParams reads the file at path and decodes it with DecodeParams. It
// reads no more than the size the file had when opened, so a file that is
// still growing cannot make it allocate without bound. Format errors are
// *FormatError values wrapped with the path (use errors.As).
func LoadParams(path string) ([]NamedArray, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("load params %s: %w", path, err)
	}
	list, err := DecodeParams(data)
	if err != nil {
		return nil, fmt.Errorf("load params %s: %w", path, err)
	}
	return list, nil
}

// ParamsMap turns a list into a map from name to array. An entry without a
// name (as in an unnamed list) or a name that appears twice is an error.
func ParamsMap(list []NamedArray) (map[string]*eager.NDArray, error) {
	m := make(map[string]*eager.NDArray, len(list))
	first := make(map[string]int, len(list))
	for i, e := range list {
		if e.Name == "" {
			return nil, fmt.Errorf("params: entry %d has no name (an unnamed list cannot be a map)", i)
		}
		if j, dup := first[e.Name]; dup {
			return nil, fmt.Errorf("params: entries %d and %d are both named %q", j, i, e.Name)
		}
		first[e.Name] = i
		m[e.Name] = e.Array
	}
	return m, nil
}
