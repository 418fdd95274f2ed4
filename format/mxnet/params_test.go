package mxnet

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// fixture builds params bytes by hand from the format facts, independently
// of EncodeParams. All integers are little-endian.
type fixture struct{ b []byte }

func (f *fixture) u32(v uint32) *fixture {
	f.b = append(f.b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	return f
}
func (f *fixture) i32(v int32) *fixture { return f.u32(uint32(v)) }
func (f *fixture) u64(v uint64) *fixture {
	f.u32(uint32(v))
	return f.u32(uint32(v >> 32))
}
func (f *fixture) i64(v int64) *fixture     { return f.u64(uint64(v)) }
func (f *fixture) raw(b ...byte) *fixture   { f.b = append(f.b, b...); return f }
func (f *fixture) header(n uint64) *fixture { return f.u64(0x112).u64(0).u64(n) }

// names writes the names section: a count, then each length and bytes.
func (f *fixture) names(ns ...string) *fixture {
	f.u64(uint64(len(ns)))
	for _, n := range ns {
		f.u64(uint64(len(n))).raw([]byte(n)...)
	}
	return f
}

// shape writes "i32 ndim; ndim × i64 dims".
func (f *fixture) shape(dims ...int64) *fixture {
	f.i32(int32(len(dims)))
	for _, d := range dims {
		f.i64(d)
	}
	return f
}

func (f *fixture) f32s(xs ...float32) *fixture {
	for _, x := range xs {
		f.u32(math.Float32bits(x))
	}
	return f
}

// v2 writes one dense V2 array of float32 values in cpu(0).
func (f *fixture) v2(dims []int64, xs ...float32) *fixture {
	return f.u32(0xF993FAC9).i32(0).shape(dims...).i32(1).i32(0).i32(0).f32s(xs...)
}

// sampleData makes n values of dtype that exercise signs, extremes and
// (for floats) NaN and infinities.
func sampleData(dtype ops.DType, n int) any {
	switch dtype {
	case ops.Float32:
		d := make([]float32, n)
		special := []float32{0, float32(math.Copysign(0, -1)), 1.5, -2.25, float32(math.Inf(1)), float32(math.NaN()), math.MaxFloat32, math.SmallestNonzeroFloat32}
		for i := range d {
			d[i] = special[i%len(special)] + float32(i/len(special))
		}
		if n > 0 {
			d[0] = float32(math.Copysign(0, -1))
		}
		return d
	case ops.Float64:
		d := make([]float64, n)
		special := []float64{0, 1.5, -2.25, math.Inf(-1), math.NaN(), math.MaxFloat64, math.SmallestNonzeroFloat64}
		for i := range d {
			d[i] = special[i%len(special)] - float64(i)/3
		}
		return d
	case ops.Uint8:
		d := make([]uint8, n)
		for i := range d {
			d[i] = uint8(i*37 + 200)
		}
		return d
	case ops.Int8:
		d := make([]int8, n)
		for i := range d {
			d[i] = int8(i*37 - 128)
		}
		return d
	case ops.Int32:
		d := make([]int32, n)
		for i := range d {
			d[i] = int32(i*2654435761) ^ math.MinInt32
		}
		return d
	case ops.Int64:
		d := make([]int64, n)
		for i := range d {
			d[i] = int64(i)*-6364136223846793005 + math.MaxInt64
		}
		return d
	case ops.Bool:
		d := make([]bool, n)
		for i := range d {
			d[i] = i%3 != 1
		}
		return d
	}
	panic("no sample data for " + dtype.String())
}

func sampleArray(dtype ops.DType, shape ...int) *eager.NDArray {
	s := ops.Shape(shape)
	return eager.FromValue(ops.Value{Shape: s, DType: dtype, Data: sampleData(dtype, s.Size())})
}

// sameBits compares data slices element by element, floats by their bits
// (so NaN equals NaN and -0 differs from +0).
func sameBits(a, b any) bool {
	switch x := a.(type) {
	case []float32:
		y, ok := b.([]float32)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
				return false
			}
		}
		return true
	case []float64:
		y, ok := b.([]float64)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	}
	return fmt.Sprint(a) == fmt.Sprint(b) && fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b)
}

// listDiff returns "" when the lists hold the same names, shapes, dtypes
// and values, and a description of the first difference otherwise.
func listDiff(got, want []NamedArray) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d entries, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		switch {
		case g.Name != w.Name:
			return fmt.Sprintf("entry %d: name %q, want %q", i, g.Name, w.Name)
		case !g.Array.Shape().Equal(w.Array.Shape()):
			return fmt.Sprintf("entry %d: shape %v, want %v", i, g.Array.Shape(), w.Array.Shape())
		case g.Array.DType() != w.Array.DType():
			return fmt.Sprintf("entry %d: dtype %v, want %v", i, g.Array.DType(), w.Array.DType())
		case !sameBits(g.Array.Data(), w.Array.Data()):
			return fmt.Sprintf("entry %d: values %v, want %v", i, g.Array.Data(), w.Array.Data())
		}
	}
	return ""
}

func mustEncode(t testing.TB, list []NamedArray) []byte {
	t.Helper()
	b, err := EncodeParams(list)
	if err != nil {
		t.Fatalf("EncodeParams: %v", err)
	}
	return b
}

func mustDecode(t testing.TB, b []byte) []NamedArray {
	t.Helper()
	list, err := DecodeParams(b)
	if err != nil {
		t.Fatalf("DecodeParams: %v", err)
	}
	return list
}

// roundTrip checks list -> bytes -> list and bytes -> list -> bytes.
func roundTrip(t *testing.T, list []NamedArray) {
	t.Helper()
	b := mustEncode(t, list)
	back := mustDecode(t, b)
	if d := listDiff(back, list); d != "" {
		t.Fatalf("list -> bytes -> list: %s", d)
	}
	again := mustEncode(t, back)
	if !bytes.Equal(again, b) {
		t.Fatalf("bytes -> list -> bytes differs: %d bytes, want %d", len(again), len(b))
	}
}

var testShapes = [][]int{{5}, {2, 3}, {2, 1, 3}, {1, 2, 2, 3}}

func TestRoundTripEveryDTypeAndRank(t *testing.T) {
	for _, dt := range ops.DTypes() {
		for _, shape := range testShapes {
			t.Run(fmt.Sprintf("%v/%v", dt, ops.Shape(shape)), func(t *testing.T) {
				roundTrip(t, []NamedArray{
					{Name: "arg:x_" + dt.String(), Array: sampleArray(dt, shape...)},
					{Name: "aux:y", Array: sampleArray(dt, 1)},
				})
			})
		}
	}
}

func TestRoundTripMixedList(t *testing.T) {
	var named, unnamed []NamedArray
	for i, dt := range ops.DTypes() {
		a := sampleArray(dt, testShapes[i%len(testShapes)]...)
		named = append(named, NamedArray{Name: fmt.Sprintf("%d.weight", i), Array: a})
		unnamed = append(unnamed, NamedArray{Array: a})
	}
	t.Run("named", func(t *testing.T) { roundTrip(t, named) })
	t.Run("unnamed", func(t *testing.T) { roundTrip(t, unnamed) })
	t.Run("empty", func(t *testing.T) { roundTrip(t, nil) })
	t.Run("zero-size", func(t *testing.T) {
		roundTrip(t, []NamedArray{{Name: "e", Array: sampleArray(ops.Float32, 0, 3)}})
	})
	t.Run("some names empty", func(t *testing.T) {
		// Any name makes the whole names section present.
		list := []NamedArray{{Name: "a", Array: eager.Ones(1)}, {Array: eager.Ones(2)}}
		b := mustEncode(t, list)
		want := new(fixture).header(2).v2([]int64{1}, 1).v2([]int64{2}, 1, 1).names("a", "").b
		if !bytes.Equal(b, want) {
			t.Fatalf("encoding:\n% x\nwant\n% x", b, want)
		}
		roundTrip(t, list)
	})
}

func TestEncodeDeterministic(t *testing.T) {
	list := []NamedArray{{Name: "w", Array: sampleArray(ops.Float64, 3, 4)}, {Name: "b", Array: sampleArray(ops.Int8, 4)}}
	a, b := mustEncode(t, list), mustEncode(t, list)
	if !bytes.Equal(a, b) {
		t.Fatal("two encodings of one list differ")
	}
}

// TestGoldenV2 pins the V2 layout byte by byte.
func TestGoldenV2(t *testing.T) {
	list := []NamedArray{
		{Name: "arg:w", Array: eager.Array([]float32{1, -2}, 2)},
		{Name: "aux:m", Array: eager.Array([]int64{7}, 1, 1)},
	}
	golden := []byte{
		0x12, 0x01, 0, 0, 0, 0, 0, 0, // list magic 0x112
		0, 0, 0, 0, 0, 0, 0, 0, // reserved
		2, 0, 0, 0, 0, 0, 0, 0, // 2 arrays

		0xC9, 0xFA, 0x93, 0xF9, // array 0: V2 magic 0xF993FAC9
		0, 0, 0, 0, // stype 0 (dense)
		1, 0, 0, 0, // ndim 1
		2, 0, 0, 0, 0, 0, 0, 0, // dim 2
		1, 0, 0, 0, // dev_type 1 (cpu)
		0, 0, 0, 0, // dev_id 0
		0, 0, 0, 0, // type flag 0 (float32)
		0x00, 0x00, 0x80, 0x3F, // 1.0
		0x00, 0x00, 0x00, 0xC0, // -2.0

		0xC9, 0xFA, 0x93, 0xF9, // array 1: V2 magic
		0, 0, 0, 0, // dense
		2, 0, 0, 0, // ndim 2
		1, 0, 0, 0, 0, 0, 0, 0, // dim 1
		1, 0, 0, 0, 0, 0, 0, 0, // dim 1
		1, 0, 0, 0, // cpu
		0, 0, 0, 0, // dev_id 0
		6, 0, 0, 0, // type flag 6 (int64)
		7, 0, 0, 0, 0, 0, 0, 0, // 7

		2, 0, 0, 0, 0, 0, 0, 0, // 2 names
		5, 0, 0, 0, 0, 0, 0, 0, 'a', 'r', 'g', ':', 'w',
		5, 0, 0, 0, 0, 0, 0, 0, 'a', 'u', 'x', ':', 'm',
	}
	got := mustEncode(t, list)
	if !bytes.Equal(got, golden) {
		t.Fatalf("encoding:\n% x\nwant\n% x", got, golden)
	}
	if d := listDiff(mustDecode(t, golden), list); d != "" {
		t.Fatalf("decoding the golden bytes: %s", d)
	}
	// The test's own fixture writer agrees with the golden bytes.
	fx := new(fixture).header(2).v2([]int64{2}, 1, -2).
		u32(0xF993FAC9).i32(0).shape(1, 1).i32(1).i32(0).i32(6).i64(7).
		names("arg:w", "aux:m")
	if !bytes.Equal(fx.b, golden) {
		t.Fatal("the fixture writer disagrees with the golden bytes")
	}
}

// formatError decodes b, expecting a *FormatError.
func formatError(t *testing.T, b []byte) *FormatError {
	t.Helper()
	list, err := DecodeParams(b)
	if err == nil {
		t.Fatalf("DecodeParams accepted the input: %d arrays", len(list))
	}
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *FormatError", err, err)
	}
	return fe
}

func checkError(t *testing.T, b []byte, offset int64, index int, name string, contains ...string) {
	t.Helper()
	fe := formatError(t, b)
	if fe.Offset != offset || fe.Index != index || fe.Name != name {
		t.Errorf("error %q: offset %d, index %d, name %q; want %d, %d, %q", fe, fe.Offset, fe.Index, fe.Name, offset, index, name)
	}
	msg := fe.Error()
	if !strings.HasPrefix(msg, fmt.Sprintf("params: offset %d: ", offset)) {
		t.Errorf("error %q does not start with its offset", msg)
	}
	for _, c := range contains {
		if !strings.Contains(msg, c) {
			t.Errorf("error %q does not mention %q", msg, c)
		}
	}
}

func TestDecodeLegacyLayouts(t *testing.T) {
	want := []NamedArray{{Name: "arg:w", Array: eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)}}
	cases := map[string][]byte{
		// V1: V2 without the storage type.
		"V1": new(fixture).header(1).
			u32(0xF993FAC8).shape(2, 3).i32(1).i32(0).i32(0).f32s(1, 2, 3, 4, 5, 6).
			names("arg:w").b,
		// V0: no magic; u32 ndim, u32 dims.
		"V0": new(fixture).header(1).
			u32(2).u32(2).u32(3).i32(1).i32(0).i32(0).f32s(1, 2, 3, 4, 5, 6).
			names("arg:w").b,
		// V3: V2's layout, numpy shape semantics.
		"V3": new(fixture).header(1).
			u32(0xF993FACA).i32(0).shape(2, 3).i32(1).i32(0).i32(0).f32s(1, 2, 3, 4, 5, 6).
			names("arg:w").b,
		// Saved from gpu(1): loads to cpu.
		"gpu context": new(fixture).header(1).
			u32(0xF993FAC9).i32(0).shape(2, 3).i32(2).i32(1).i32(0).f32s(1, 2, 3, 4, 5, 6).
			names("arg:w").b,
		"cpu_shared context": new(fixture).header(1).
			u32(0xF993FAC9).i32(0).shape(2, 3).i32(5).i32(3).i32(0).f32s(1, 2, 3, 4, 5, 6).
			names("arg:w").b,
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			got := mustDecode(t, b)
			if d := listDiff(got, want); d != "" {
				t.Fatal(d)
			}
			if ctx := got[0].Array.Context(); ctx != eager.CPU(0) {
				t.Errorf("context %v, want cpu(0)", ctx)
			}
			// Re-encoding gives the V2 layout.
			if d := listDiff(mustDecode(t, mustEncode(t, got)), want); d != "" {
				t.Fatal(d)
			}
		})
	}
}

func TestDecodeV3Scalar(t *testing.T) {
	b := new(fixture).header(1).u32(0xF993FACA).i32(0).shape().i32(1).i32(0).i32(1).u64(math.Float64bits(2.5)).names("s").b
	got := mustDecode(t, b)
	if a := got[0].Array; a.NDim() != 0 || a.DType() != ops.Float64 || a.Scalar() != 2.5 {
		t.Fatalf("got %v %v %v, want a float64 scalar 2.5", a.Shape(), a.DType(), a.Float64s())
	}
	// V2 cannot hold it: writing it is an error, not a silent "none".
	if _, err := EncodeParams(got); err == nil || !strings.Contains(err.Error(), `entry 0 ("s")`) || !strings.Contains(err.Error(), "0-dim") {
		t.Fatalf("EncodeParams of a scalar: %v", err)
	}
}

func TestDecodeUnnamedList(t *testing.T) {
	b := new(fixture).header(2).v2([]int64{1}, 7).
		u32(0xF993FAC9).i32(0).shape(3).i32(1).i32(0).i32(3).raw(1, 2, 255).
		u64(0).b
	got := mustDecode(t, b)
	want := []NamedArray{{Array: eager.Array([]float32{7})}, {Array: eager.Array([]uint8{1, 2, 255})}}
	if d := listDiff(got, want); d != "" {
		t.Fatal(d)
	}
	if !bytes.Equal(mustEncode(t, got), b) {
		t.Fatal("an unnamed list does not re-encode to the same bytes")
	}
	if _, err := ParamsMap(got); err == nil || !strings.Contains(err.Error(), "no name") {
		t.Fatalf("ParamsMap of an unnamed list: %v", err)
	}
}

func TestDecodeBoolBytes(t *testing.T) {
	b := new(fixture).header(1).u32(0xF993FAC9).i32(0).shape(3).i32(1).i32(0).i32(7).raw(0, 1, 9).names("m").b
	got := mustDecode(t, b)
	if d := listDiff(got, []NamedArray{{Name: "m", Array: eager.Array([]bool{false, true, true})}}); d != "" {
		t.Fatal(d)
	}
}

func TestDecodeErrors(t *testing.T) {
	// The arrays start at offset 24; in a V2 array the stype is at +4, the
	// shape at +8, and with one dim the context at +20 and type flag at +28.
	// dense writes a 40-byte array.
	dense := func(f *fixture) *fixture { return f.v2([]int64{2}, 1, 2) }
	t.Run("row_sparse", func(t *testing.T) {
		b := dense(new(fixture).header(3)).
			u32(0xF993FAC9).i32(1). // row_sparse
			shape(1, 2).            // storage shape: 1 row of 2
			shape(4, 2).            // shape
			i32(1).i32(0).i32(0).   // cpu, float32
			i32(6).shape(1).        // aux 0: int64 row indices, shape (1,)
			f32s(5, 6).i64(3)       // data, then aux data
		b = dense(b).names("a", "arg:emb", "c")
		checkError(t, b.b, 24+40+4, 1, "arg:emb", `array 1 ("arg:emb")`, "row_sparse", "dense")
	})
	t.Run("csr", func(t *testing.T) {
		b := new(fixture).header(1).
			u32(0xF993FAC9).i32(2). // csr
			shape(2).               // storage shape: 2 values
			shape(2, 3).            // shape
			i32(1).i32(0).i32(0).   // cpu, float32
			i32(6).shape(3).        // aux 0: indptr
			i32(6).shape(2).        // aux 1: indices
			f32s(1, 2).i64(0).i64(1).i64(2).i64(0).i64(2).
			names("x")
		checkError(t, b.b, 28, 0, "x", "csr")
	})
	t.Run("float16", func(t *testing.T) {
		b := new(fixture).header(1).u32(0xF993FAC9).i32(0).shape(2).i32(1).i32(0).i32(2).raw(0, 0x3C, 0, 0x40).names("arg:w")
		checkError(t, b.b, 52, 0, "arg:w", `array 0 ("arg:w")`, "type flag 2 (float16)")
	})
	t.Run("bfloat16 in a V1 array", func(t *testing.T) {
		b := new(fixture).header(1).u32(0xF993FAC8).shape(1).i32(1).i32(0).i32(12).raw(0, 0).names("h")
		checkError(t, b.b, 48, 0, "h", "type flag 12 (bfloat16)")
	})
	t.Run("unknown type flag", func(t *testing.T) {
		b := new(fixture).header(1).u32(0xF993FAC9).i32(0).shape(1).i32(1).i32(0).i32(99).raw(0, 0, 0, 0).names("w")
		checkError(t, b.b, 52, 0, "", "type flag 99 is unknown")
	})
	t.Run("unknown magic", func(t *testing.T) {
		b := dense(new(fixture).header(2)).u32(0xDEADBEEF).names("a", "b")
		checkError(t, b.b, 24+40, 1, "", "unknown array magic 0xDEADBEEF")
	})
	t.Run("list magic", func(t *testing.T) {
		b := new(fixture).u64(0x113).u64(0).u64(0).u64(0)
		checkError(t, b.b, 0, -1, "", "list magic is 0x113, want 0x112")
	})
	t.Run("unknown storage type", func(t *testing.T) {
		b := new(fixture).header(1).u32(0xF993FAC9).i32(3).shape(1).names("w")
		checkError(t, b.b, 28, 0, "", "storage type 3 is unknown")
	})
	t.Run("unknown device type", func(t *testing.T) {
		b := new(fixture).header(1).u32(0xF993FAC9).i32(0).shape(1).i32(4).i32(0).i32(0).f32s(1).names("w")
		checkError(t, b.b, 44, 0, "w", "device type 4 is unknown")
	})
	t.Run("V2 none array", func(t *testing.T) {
		b := dense(new(fixture).header(2)).u32(0xF993FAC9).i32(0).shape().names("a", "arg:none")
		checkError(t, b.b, 24+40+8, 1, "arg:none", "none array")
	})
	t.Run("V3 unknown shape", func(t *testing.T) {
		b := new(fixture).header(1).u32(0xF993FACA).i32(0).shape(2, -1).names("u")
		checkError(t, b.b, 32, 0, "u", "none array")
	})
	t.Run("V0 none array", func(t *testing.T) {
		b := new(fixture).header(1).u32(0).names("z")
		checkError(t, b.b, 24, 0, "z", "none array")
	})
	t.Run("negative dim", func(t *testing.T) {
		b := new(fixture).header(1).u32(0xF993FAC9).i32(0).shape(1, 2, -3, 4, 5).names("arg:w")
		checkError(t, b.b, 32, 0, "", "shape has 5 dims of which dim 2 is -3")
	})
	t.Run("V3 dim below -1", func(t *testing.T) {
		b := new(fixture).header(1).u32(0xF993FACA).i32(0).shape(-2).names("w")
		checkError(t, b.b, 32, 0, "", "dim 0 is -2")
	})
	t.Run("too many dims", func(t *testing.T) {
		b := new(fixture).header(1).u32(0xF993FAC9).i32(0).i32(33).names("w")
		checkError(t, b.b, 32, 0, "", "33 dims")
	})
	t.Run("overflowing element count", func(t *testing.T) {
		b := new(fixture).header(1).u32(0xF993FAC9).i32(0).shape(1<<32, 1<<32, 1<<32).i32(1).i32(0).i32(0).names("w")
		checkError(t, b.b, 32, 0, "", "overflows")
	})
	t.Run("data larger than the file", func(t *testing.T) {
		b := new(fixture).header(1).u32(0xF993FAC9).i32(0).shape(1000).i32(1).i32(0).i32(0).f32s(1, 2).names("w")
		checkError(t, b.b, 56, 0, "", "1000 elements of 4 bytes")
	})
	t.Run("name count", func(t *testing.T) {
		b := dense(dense(new(fixture).header(2))).names("only one")
		checkError(t, b.b, 24+80, -1, "", "1 names for 2 arrays")
	})
	t.Run("trailing bytes", func(t *testing.T) {
		b := dense(new(fixture).header(1)).names("w").raw(0)
		checkError(t, b.b, int64(len(b.b)-1), -1, "", "1 bytes follow")
	})
	t.Run("trailing bytes after an unnamed list", func(t *testing.T) {
		b := dense(new(fixture).header(1)).u64(0).u32(7)
		checkError(t, b.b, int64(len(b.b)-4), -1, "", "4 bytes follow")
	})
}

// TestTruncation decodes every proper prefix of valid files: each is an
// error, never a panic.
func TestTruncation(t *testing.T) {
	var list []NamedArray
	for i, dt := range ops.DTypes() {
		list = append(list, NamedArray{Name: fmt.Sprintf("p%d", i), Array: sampleArray(dt, 2, 3)})
	}
	files := map[string][]byte{
		"V2 named":   mustEncode(t, list),
		"V2 unnamed": mustEncode(t, []NamedArray{{Array: eager.Ones(3)}, {Array: eager.Ones(1, 2)}}),
		"V0 V1 V3": new(fixture).header(3).
			u32(1).u32(2).i32(1).i32(0).i32(0).f32s(1, 2).
			u32(0xF993FAC8).shape(1).i32(1).i32(0).i32(0).f32s(3).
			u32(0xF993FACA).i32(0).shape().i32(1).i32(0).i32(0).f32s(4).
			names("a", "b", "c").b,
	}
	for name, b := range files {
		mustDecode(t, b)
		for n := range len(b) {
			if _, err := DecodeParams(b[:n]); err == nil {
				t.Fatalf("%s: the prefix of %d of %d bytes decoded without error", name, n, len(b))
			}
		}
	}
}

// TestHugeClaims feeds headers that claim far more than the input holds:
// each must fail at once without allocating for the claim.
func TestHugeClaims(t *testing.T) {
	cases := map[string]struct {
		b    []byte
		want string
	}{
		"2^40 arrays":   {new(fixture).header(1<<40).v2([]int64{1}, 1).names("w").b, "claims 1099511627776 arrays"},
		"2^64-1 arrays": {new(fixture).header(math.MaxUint64).b, "claims 18446744073709551615 arrays"},
		"dim 2^40": {new(fixture).header(1).u32(0xF993FAC9).i32(0).shape(1 << 40).i32(1).i32(0).i32(0).f32s(1).names("w").b,
			"1099511627776 elements"},
		"dims 2^40 in V1 of int64": {new(fixture).header(1).u32(0xF993FAC8).shape(1<<20, 1<<20).i32(1).i32(0).i32(6).names("w").b,
			"1099511627776 elements"},
		"V0 dims 2^32-1 x 256": {new(fixture).header(1).u32(2).u32(math.MaxUint32).u32(256).i32(1).i32(0).i32(1).names("w").b,
			"1099511627520 elements of 8 bytes"},
		"name length 2^50": {new(fixture).header(1).v2([]int64{1}, 1).u64(1).u64(1 << 50).raw('w').b,
			"name 0 claims 1125899906842624 bytes"},
		"name count 2^40": {new(fixture).header(1).v2([]int64{1}, 1).u64(1 << 40).b, "1099511627776 names for 1 arrays"},
		"sparse storage 2^40": {new(fixture).header(1).u32(0xF993FAC9).i32(1).shape(1<<40, 1).shape(1<<40, 1).
			i32(1).i32(0).i32(0).i32(6).shape(1 << 40).names("w").b, "the sparse data needs 1099511627776 elements"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := DecodeParams(c.b)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one mentioning %q", err, c.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<10 {
				t.Errorf("decoding %d bytes allocated %d bytes", len(c.b), grew)
			}
		})
	}
}

func TestDecodeAllocatesInProportion(t *testing.T) {
	b := mustEncode(t, []NamedArray{{Name: "w", Array: sampleArray(ops.Float32, 256, 256)}})
	allocs := testing.AllocsPerRun(10, func() { DecodeParams(b) })
	if allocs > 20 {
		t.Errorf("decoding one array made %v allocations", allocs)
	}
	// The least of a few runs: other goroutines of the test binary (the
	// worker pool, earlier tests' leftovers) may allocate during one.
	least := uint64(math.MaxUint64)
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		DecodeParams(b)
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	if least > uint64(len(b))+4096 {
		t.Errorf("decoding %d bytes allocated %d", len(b), least)
	}
}

// TestManyBadArrays: a file of many 4-byte "none" arrays reports the first
// by index and allocates far less than the file's own size to find that out.
func TestManyBadArrays(t *testing.T) {
	const n = 100000
	f := new(fixture).header(n)
	for range n {
		f.u32(0) // a V0 array of ndim 0: a none array
	}
	b := f.u64(0).b
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := DecodeParams(b)
	runtime.ReadMemStats(&after)
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Index != 0 || fe.Offset != 24 || !strings.Contains(err.Error(), "none array") {
		t.Fatalf("error %v, want a none array at index 0", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(len(b))/4 {
		t.Errorf("decoding %d bytes allocated %d", len(b), grew)
	}
}

func TestEncodeErrors(t *testing.T) {
	f16 := eager.FromValue(ops.Value{Shape: ops.Shape{2}, DType: ops.Float16, Data: []uint16{0x3C00, 0x4000}})
	mismatched := eager.FromValue(ops.Value{Shape: ops.Shape{2}, DType: ops.Float32, Data: []int32{1, 2}})
	short := eager.FromValue(ops.Value{Shape: ops.Shape{3}, DType: ops.Float32, Data: []float32{1, 2}})
	cases := []struct {
		list []NamedArray
		want []string
	}{
		{[]NamedArray{{Name: "ok", Array: eager.Ones(1)}, {Name: "arg:h", Array: f16}}, []string{`entry 1 ("arg:h")`, "float16"}},
		{[]NamedArray{{Name: "n"}}, []string{`entry 0 ("n")`, "nil"}},
		{[]NamedArray{{Name: "s", Array: eager.FromValue(ops.Value{Shape: ops.Shape{}, DType: ops.Float32, Data: []float32{1}})}}, []string{"0-dim"}},
		{[]NamedArray{{Name: "m", Array: mismatched}}, []string{"[]int32"}},
		{[]NamedArray{{Name: "short", Array: short}}, []string{"2 values for shape 3"}},
	}
	for _, c := range cases {
		_, err := EncodeParams(c.list)
		if err == nil {
			t.Errorf("EncodeParams(%v) succeeded", c.want)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not mention %q", err, w)
			}
		}
	}
}

func TestParamsMap(t *testing.T) {
	a, b := eager.Ones(1), eager.Zeros(2)
	m, err := ParamsMap([]NamedArray{{Name: "arg:a", Array: a}, {Name: "aux:b", Array: b}})
	if err != nil || len(m) != 2 || m["arg:a"] != a || m["aux:b"] != b {
		t.Fatalf("ParamsMap: %v, %v", m, err)
	}
	_, err = ParamsMap([]NamedArray{{Name: "w", Array: a}, {Name: "x", Array: a}, {Name: "w", Array: b}})
	if err == nil || !strings.Contains(err.Error(), `entries 0 and 2 are both named "w"`) {
		t.Fatalf("duplicate names: %v", err)
	}
}

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "net-0001.params")
	list := []NamedArray{{Name: "arg:w", Array: sampleArray(ops.Float32, 3, 2)}, {Name: "aux:n", Array: sampleArray(ops.Int64, 4)}}
	if err := SaveParams(path, list); err != nil {
		t.Fatal(err)
	}
	got, err := LoadParams(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := listDiff(got, list); d != "" {
		t.Fatal(d)
	}
	onDisk, _ := os.ReadFile(path)
	if !bytes.Equal(onDisk, mustEncode(t, list)) {
		t.Fatal("the saved file is not EncodeParams' bytes")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("a new file has mode %v, want 0644", fi.Mode().Perm())
	}
	// Saving again replaces the file and keeps its mode.
	os.Chmod(path, 0o600)
	if err := SaveParams(path, list[:1]); err != nil {
		t.Fatal(err)
	}
	if got, _ := LoadParams(path); len(got) != 1 {
		t.Fatalf("after the second save the file holds %d arrays", len(got))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("a replaced file has mode %v, want 0600 kept", fi.Mode().Perm())
	}
	assertNoTempFiles(t, dir)

	// A bad file's error is a *FormatError wrapped with the path.
	bad := filepath.Join(dir, "bad.params")
	os.WriteFile(bad, onDisk[:30], 0o644)
	_, err = LoadParams(bad)
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), bad) {
		t.Fatalf("loading a truncated file: %v", err)
	}
	if _, err := LoadParams(filepath.Join(dir, "missing.params")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("loading a missing file: %v", err)
	}
	if _, err := LoadParams(dir); err == nil {
		t.Fatal("loading a directory succeeded")
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("a temporary file was left behind: %s", e.Name())
		}
	}
}

// TestSaveFailureKeepsOldFile checks that a save that fails leaves the
// previous file byte-identical.
func TestSaveFailureKeepsOldFile(t *testing.T) {
	good := []NamedArray{{Name: "arg:w", Array: sampleArray(ops.Float32, 2, 2)}}
	setup := func(t *testing.T) (dir, path string, old []byte) {
		dir = t.TempDir()
		path = filepath.Join(dir, "model-0001.params")
		if err := SaveParams(path, good); err != nil {
			t.Fatal(err)
		}
		old, _ = os.ReadFile(path)
		return dir, path, old
	}
	unchanged := func(t *testing.T, path string, old []byte) {
		t.Helper()
		now, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(now, old) {
			t.Fatalf("the old file changed (err %v)", err)
		}
	}

	t.Run("unencodable list", func(t *testing.T) {
		dir, path, old := setup(t)
		f16 := eager.FromValue(ops.Value{Shape: ops.Shape{1}, DType: ops.Float16, Data: []uint16{0}})
		if err := SaveParams(path, []NamedArray{{Name: "h", Array: f16}}); err == nil {
			t.Fatal("saving a float16 array succeeded")
		}
		unchanged(t, path, old)
		assertNoTempFiles(t, dir)
	})

	t.Run("read-only directory", func(t *testing.T) {
		if os.Geteuid() == 0 {
			// Root ignores directory permissions, so the temporary file
			// would be created. The other cases still cover a failed save:
			// "unencodable list" fails before any file is made, and
			// "rename fails" fails after the temporary file is written,
			// which is the step a read-only directory would have stopped.
			t.Skip("running as root: directory permissions do not apply")
		}
		dir, path, old := setup(t)
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(dir, 0o755)
		if err := SaveParams(path, []NamedArray{{Name: "x", Array: eager.Ones(3)}}); err == nil {
			t.Fatal("saving into a read-only directory succeeded")
		}
		unchanged(t, path, old)
		assertNoTempFiles(t, dir)
	})

	t.Run("rename fails", func(t *testing.T) {
		// The target is a non-empty directory: the temporary file is
		// written and synced, then the rename over the target fails.
		dir := t.TempDir()
		target := filepath.Join(dir, "model-0001.params")
		os.Mkdir(target, 0o755)
		keep := filepath.Join(target, "keep")
		os.WriteFile(keep, []byte("old"), 0o644)
		if err := SaveParams(target, good); err == nil {
			t.Fatal("saving over a non-empty directory succeeded")
		}
		unchanged(t, keep, []byte("old"))
		assertNoTempFiles(t, dir)
	})

	t.Run("missing directory", func(t *testing.T) {
		dir := t.TempDir()
		if err := SaveParams(filepath.Join(dir, "no", "such", "f.params"), good); err == nil {
			t.Fatal("saving into a missing directory succeeded")
		}
	})
}

func TestFormatErrorMessage(t *testing.T) {
	e := &FormatError{Offset: 24, Index: 0, Name: "arg:w", What: "shape has 5 dims of which dim 2 is -3"}
	if got, want := e.Error(), `params: offset 24: array 0 ("arg:w"): shape has 5 dims of which dim 2 is -3`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	e = &FormatError{Offset: 0, Index: -1, What: "bad"}
	if got, want := e.Error(), "params: offset 0: bad"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func ExampleSaveParams() {
	dir, err := os.MkdirTemp("", "params-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "net-0001.params")

	err = SaveParams(path, []NamedArray{
		{Name: "arg:dense0_weight", Array: eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)},
		{Name: "arg:dense0_bias", Array: eager.Array([]float32{0.5, -0.5})},
	})
	if err != nil {
		panic(err)
	}
	list, err := LoadParams(path)
	if err != nil {
		panic(err)
	}
	for _, e := range list {
		fmt.Println(e.Name, e.Array.Shape(), e.Array.DType(), e.Array.Float32s())
	}
	params, err := ParamsMap(list)
	if err != nil {
		panic(err)
	}
	fmt.Println(params["arg:dense0_weight"].At(1, 2))
	// Output:
	// arg:dense0_weight 2x3 float32 [1 2 3 4 5 6]
	// arg:dense0_bias 2 float32 [0.5 -0.5]
	// 6
}

func ExampleDecodeParams() {
	b, _ := EncodeParams([]NamedArray{{Name: "0.weight", Array: eager.Array([]int32{7, 8})}})
	fmt.Println(len(b), "bytes")
	list, _ := DecodeParams(b)
	fmt.Println(list[0].Name, list[0].Array.Data())

	_, err := DecodeParams(b[:40])
	fmt.Println(err)
	// Output:
	// 88 bytes
	// 0.weight [7 8]
	// params: offset 36: array 0: truncated: shape of 1 dims needs 8 bytes, 4 remain
}
