package ops

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The model files (MXNet's .params, ONNX's raw_data) store array elements
// little-endian; these two functions are the one codec for them.

// AppendLittleEndian appends the elements of data (a slice of a
// supported dtype: float32, float64, int32, int64, uint8, int8, bool)
// to dst, little-endian, bools as one byte 0 or 1.
func AppendLittleEndian(dst []byte, data any) []byte {
	le := binary.LittleEndian
	switch d := data.(type) {
	case []float32:
		for _, x := range d {
			dst = le.AppendUint32(dst, math.Float32bits(x))
		}
	case []float64:
		for _, x := range d {
			dst = le.AppendUint64(dst, math.Float64bits(x))
		}
	case []int32:
		for _, x := range d {
			dst = le.AppendUint32(dst, uint32(x))
		}
	case []int64:
		for _, x := range d {
			dst = le.AppendUint64(dst, uint64(x))
		}
	case []uint8:
		dst = append(dst, d...)
	case []int8:
		for _, x := range d {
			dst = append(dst, byte(x))
		}
	case []bool:
		for _, x := range d {
			var b byte
			if x {
				b = 1
			}
			dst = append(dst, b)
		}
	default:
		panic(fmt.Sprintf("ops.AppendLittleEndian: data of type %T", data))
	}
	return dst
}

// DecodeLittleEndian converts little-endian element bytes to a new data
// slice of dtype (a non-zero byte is true for bool). len(raw) must be a
// whole number of elements, which callers reading files check first.
func DecodeLittleEndian(dtype DType, raw []byte) any {
	le := binary.LittleEndian
	switch dtype {
	case Float32:
		d := make([]float32, len(raw)/4)
		for i := range d {
			d[i] = math.Float32frombits(le.Uint32(raw[4*i:]))
		}
		return d
	case Float64:
		d := make([]float64, len(raw)/8)
		for i := range d {
			d[i] = math.Float64frombits(le.Uint64(raw[8*i:]))
		}
		return d
	case Int32:
		d := make([]int32, len(raw)/4)
		for i := range d {
			d[i] = int32(le.Uint32(raw[4*i:]))
		}
		return d
	case Int64:
		d := make([]int64, len(raw)/8)
		for i := range d {
			d[i] = int64(le.Uint64(raw[8*i:]))
		}
		return d
	case Uint8:
		return append(make([]uint8, 0, len(raw)), raw...)
	case Int8:
		d := make([]int8, len(raw))
		for i, b := range raw {
			d[i] = int8(b)
		}
		return d
	case Bool:
		d := make([]bool, len(raw))
		for i, b := range raw {
			d[i] = b != 0
		}
		return d
	}
	panic(fmt.Sprintf("ops.DecodeLittleEndian: dtype %v", dtype))
}
