package ops

import (
	"fmt"
	"strings"
)

// DType is an element type. Its numeric value is MXNet's type flag, the
// number written into .params files and the "__dtype__" attribute.
type DType int

// The element types. Float16 has a flag (so files that mention it can be
// read) but no kernels.
const (
	Float32 DType = 0
	Float64 DType = 1
	Float16 DType = 2
	Uint8   DType = 3
	Int32   DType = 4
	Int8    DType = 5
	Int64   DType = 6
	Bool    DType = 7
)

// Unknown marks a dtype not yet inferred.
const Unknown DType = -1

var dtypeNames = map[DType]string{
	Float32: "float32", Float64: "float64", Float16: "float16", Uint8: "uint8",
	Int32: "int32", Int8: "int8", Int64: "int64", Bool: "bool", Unknown: "unknown",
}

// String returns numpy's name for the dtype ("float32").
func (d DType) String() string {
	if s, ok := dtypeNames[d]; ok {
		return s
	}
	return fmt.Sprintf("dtype(%d)", int(d))
}

// ParseDType reads a dtype name ("float32", "int64", "bool") as MXNet writes it.
// The empty string and "None" are not dtypes: callers that allow them check first.
func ParseDType(s string) (DType, error) {
	s = strings.Trim(strings.TrimSpace(s), `'"`)
	for d, name := range dtypeNames {
		if name == s && d != Unknown {
			return d, nil
		}
	}
	return Unknown, fmt.Errorf("unknown dtype %q (want one of float32, float64, uint8, int8, int32, int64, bool)", s)
}

// Size is the number of bytes one element takes.
func (d DType) Size() int {
	switch d {
	case Float64, Int64:
		return 8
	case Float32, Int32:
		return 4
	case Float16:
		return 2
	case Uint8, Int8, Bool:
		return 1
	}
	return 0
}

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool { return d == Float32 || d == Float64 || d == Float16 }

// Supported reports whether kernels exist for d (every dtype but float16).
func (d DType) Supported() bool { return d.Size() > 0 && d != Float16 }

// DTypes lists the dtypes with kernels, float32 first.
func DTypes() []DType { return []DType{Float32, Float64, Uint8, Int8, Int32, Int64, Bool} }
