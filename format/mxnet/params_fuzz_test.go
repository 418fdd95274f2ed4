package mxnet

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/ops"
)

// FuzzDecodeParams checks that DecodeParams never panics, and that a list
// it accepts re-encodes and decodes to the same list. The one list it may
// accept but EncodeParams refuses holds a V3 scalar, which V2 cannot hold.
func FuzzDecodeParams(f *testing.F) {
	for i, dt := range ops.DTypes() {
		f.Add(mustEncode(f, []NamedArray{{Name: fmt.Sprintf("arg:p%d", i), Array: sampleArray(dt, 2, 2)}}))
		f.Add(mustEncode(f, []NamedArray{{Array: sampleArray(dt, 3)}, {Array: sampleArray(dt, 1, 1, 2)}}))
	}
	f.Add(mustEncode(f, nil))
	f.Add(new(fixture).header(3).
		u32(2).u32(1).u32(2).i32(1).i32(0).i32(0).f32s(1, 2).        // V0
		u32(0xF993FAC8).shape(2).i32(2).i32(1).i32(5).raw(3, 4).     // V1, gpu(1), int8
		u32(0xF993FACA).i32(0).shape(1).i32(1).i32(0).i32(7).raw(1). // V3
		names("a", "b", "c").b)
	f.Add(new(fixture).header(1).u32(0xF993FACA).i32(0).shape().i32(1).i32(0).i32(1).u64(math.Float64bits(1)).u64(0).b)
	f.Add(new(fixture).header(1).u32(0xF993FAC9).i32(1).shape(1, 1).shape(2, 1).
		i32(1).i32(0).i32(0).i32(6).shape(1).f32s(1).i64(0).names("s").b)
	f.Add(new(fixture).header(1).u32(0xF993FAC9).i32(0).shape(2).i32(1).i32(0).i32(2).raw(0, 0, 0, 0).names("h").b)

	f.Fuzz(func(t *testing.T, data []byte) {
		list, err := DecodeParams(data)
		if err != nil {
			if _, ok := err.(*FormatError); !ok {
				t.Fatalf("error %v is a %T, not a *FormatError", err, err)
			}
			return
		}
		b, err := EncodeParams(list)
		if err != nil {
			for _, e := range list {
				if e.Array.NDim() == 0 {
					if !strings.Contains(err.Error(), "0-dim") {
						t.Fatalf("EncodeParams of a list with a scalar: %v", err)
					}
					return
				}
			}
			t.Fatalf("EncodeParams of an accepted list: %v", err)
		}
		back, err := DecodeParams(b)
		if err != nil {
			t.Fatalf("decoding the re-encoding: %v", err)
		}
		if d := listDiff(back, list); d != "" {
			t.Fatalf("the re-encoding decodes to another list: %s", d)
		}
	})
}
