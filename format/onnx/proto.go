package onnx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// This file holds the subset of ONNX's protobuf messages that hybridgo
// writes and reads, as plain Go structs, with an encoder and a decoder
// written on protowire. The field numbers are those of onnx.proto (IR
// version 8). Fields not listed here are skipped when reading.

// IRVersion is the ONNX IR version written into models (ONNX 1.10+,
// which every opset hybridgo writes needs at most).
const IRVersion = 8

// Tensor element types (TensorProto.DataType).
const (
	TypeFloat  int32 = 1
	TypeUint8  int32 = 2
	TypeInt8   int32 = 3
	TypeInt32  int32 = 6
	TypeInt64  int32 = 7
	TypeBool   int32 = 9
	TypeDouble int32 = 11
)

// Attribute types (AttributeProto.AttributeType).
const (
	AttrFloat   int32 = 1
	AttrInt     int32 = 2
	AttrString  int32 = 3
	AttrTensor  int32 = 4
	AttrFloats  int32 = 6
	AttrInts    int32 = 7
	AttrStrings int32 = 8
)

// Model is ModelProto.
type Model struct {
	IRVersion       int64     // 1
	ProducerName    string    // 2
	ProducerVersion string    // 3
	Domain          string    // 4
	ModelVersion    int64     // 5
	DocString       string    // 6
	Graph           *Graph    // 7
	OpsetImports    []OpsetID // 8
}

// OpsetID is OperatorSetIdProto: an operator set and its version; the
// default ONNX domain is "".
type OpsetID struct {
	Domain  string // 1
	Version int64  // 2
}

// Graph is GraphProto.
type Graph struct {
	Nodes        []*Node      // 1
	Name         string       // 2
	Initializers []*Tensor    // 5
	DocString    string       // 10
	Inputs       []*ValueInfo // 11
	Outputs      []*ValueInfo // 12
	ValueInfo    []*ValueInfo // 13
}

// Node is NodeProto: one operator applied to named values.
type Node struct {
	Inputs     []string     // 1
	Outputs    []string     // 2
	Name       string       // 3
	OpType     string       // 4
	Attributes []*Attribute // 5
	DocString  string       // 6
	Domain     string       // 7
}

// Attribute is AttributeProto; Type says which value field holds the
// value.
type Attribute struct {
	Name    string    // 1
	F       float32   // 2
	I       int64     // 3
	S       []byte    // 4
	T       *Tensor   // 5
	Floats  []float32 // 7
	Ints    []int64   // 8
	Strings [][]byte  // 9
	Type    int32     // 20
}

// Tensor is TensorProto. Writing puts the values in RawData (little
// endian); reading also accepts the typed fields.
type Tensor struct {
	Dims       []int64   // 1
	DataType   int32     // 2
	FloatData  []float32 // 4
	Int32Data  []int32   // 5
	Int64Data  []int64   // 7
	Name       string    // 8
	RawData    []byte    // 9
	DoubleData []float64 // 10
}

// ValueInfo is ValueInfoProto: a named value with its tensor type.
type ValueInfo struct {
	Name      string // 1
	ElemType  int32  // type (2) . tensor_type (1) . elem_type (1)
	Shape     []Dim  // type . tensor_type . shape (2) . dim (1); nil: no shape
	HasShape  bool   // whether a shape was given (a scalar has an empty one)
	DocString string // 3
}

// Dim is one TensorShapeProto.Dimension: a fixed size, a named symbolic
// size such as "N", or neither (unknown).
type Dim struct {
	Value int64  // 1
	Param string // 2
}

// ---- encoding ----

type enc struct{ b []byte }

func (e *enc) bytes(num protowire.Number, v []byte) {
	e.b = protowire.AppendTag(e.b, num, protowire.BytesType)
	e.b = protowire.AppendBytes(e.b, v)
}

func (e *enc) str(num protowire.Number, s string) {
	if s != "" {
		e.b = protowire.AppendTag(e.b, num, protowire.BytesType)
		e.b = protowire.AppendString(e.b, s)
	}
}

func (e *enc) varint(num protowire.Number, v int64) {
	if v != 0 {
		e.b = protowire.AppendTag(e.b, num, protowire.VarintType)
		e.b = protowire.AppendVarint(e.b, uint64(v))
	}
}

// msg writes a nested message built by f.
func (e *enc) msg(num protowire.Number, f func(*enc)) {
	var sub enc
	f(&sub)
	e.bytes(num, sub.b)
}

func (e *enc) packedInts(num protowire.Number, vs []int64) {
	if len(vs) == 0 {
		return
	}
	var p []byte
	for _, v := range vs {
		p = protowire.AppendVarint(p, uint64(v))
	}
	e.bytes(num, p)
}

func (e *enc) packedFloats(num protowire.Number, vs []float32) {
	if len(vs) == 0 {
		return
	}
	var p []byte
	for _, v := range vs {
		p = protowire.AppendFixed32(p, math.Float32bits(v))
	}
	e.bytes(num, p)
}

// Encode returns the protobuf bytes of m (a .onnx file).
func (m *Model) Encode() []byte {
	var e enc
	e.varint(1, m.IRVersion)
	e.str(2, m.ProducerName)
	e.str(3, m.ProducerVersion)
	e.str(4, m.Domain)
	e.varint(5, m.ModelVersion)
	e.str(6, m.DocString)
	if m.Graph != nil {
		e.msg(7, m.Graph.encode)
	}
	for _, o := range m.OpsetImports {
		e.msg(8, func(e *enc) {
			e.str(1, o.Domain)
			e.varint(2, o.Version)
		})
	}
	return e.b
}

func (g *Graph) encode(e *enc) {
	for _, n := range g.Nodes {
		e.msg(1, n.encode)
	}
	e.str(2, g.Name)
	for _, t := range g.Initializers {
		e.msg(5, t.encode)
	}
	e.str(10, g.DocString)
	for _, v := range g.Inputs {
		e.msg(11, v.encode)
	}
	for _, v := range g.Outputs {
		e.msg(12, v.encode)
	}
	for _, v := range g.ValueInfo {
		e.msg(13, v.encode)
	}
}

func (n *Node) encode(e *enc) {
	for _, s := range n.Inputs {
		e.bytes(1, []byte(s)) // an empty name (a missing optional input) is kept
	}
	for _, s := range n.Outputs {
		e.bytes(2, []byte(s))
	}
	e.str(3, n.Name)
	e.str(4, n.OpType)
	for _, a := range n.Attributes {
		e.msg(5, a.encode)
	}
	e.str(6, n.DocString)
	e.str(7, n.Domain)
}

func (a *Attribute) encode(e *enc) {
	e.str(1, a.Name)
	switch a.Type {
	case AttrFloat:
		e.b = protowire.AppendTag(e.b, 2, protowire.Fixed32Type)
		e.b = protowire.AppendFixed32(e.b, math.Float32bits(a.F))
	case AttrInt:
		e.b = protowire.AppendTag(e.b, 3, protowire.VarintType)
		e.b = protowire.AppendVarint(e.b, uint64(a.I))
	case AttrString:
		e.bytes(4, a.S)
	case AttrTensor:
		if a.T != nil {
			e.msg(5, a.T.encode)
		}
	case AttrFloats:
		e.packedFloats(7, a.Floats)
	case AttrInts:
		e.packedInts(8, a.Ints)
	case AttrStrings:
		for _, s := range a.Strings {
			e.bytes(9, s)
		}
	}
	e.varint(20, int64(a.Type))
}

func (t *Tensor) encode(e *enc) {
	e.packedInts(1, t.Dims)
	e.varint(2, int64(t.DataType))
	e.packedFloats(4, t.FloatData)
	if len(t.Int32Data) > 0 {
		vs := make([]int64, len(t.Int32Data))
		for i, v := range t.Int32Data {
			vs[i] = int64(v)
		}
		e.packedInts(5, vs)
	}
	e.packedInts(7, t.Int64Data)
	e.str(8, t.Name)
	if t.RawData != nil {
		e.bytes(9, t.RawData)
	}
	if len(t.DoubleData) > 0 {
		var p []byte
		for _, v := range t.DoubleData {
			p = protowire.AppendFixed64(p, math.Float64bits(v))
		}
		e.bytes(10, p)
	}
}

func (v *ValueInfo) encode(e *enc) {
	e.str(1, v.Name)
	e.msg(2, func(e *enc) { // TypeProto
		e.msg(1, func(e *enc) { // TypeProto.Tensor
			e.varint(1, int64(v.ElemType))
			if v.HasShape {
				e.msg(2, func(e *enc) { // TensorShapeProto
					for _, d := range v.Shape {
						e.msg(1, func(e *enc) {
							if d.Param != "" {
								e.str(2, d.Param)
							} else if d.Value > 0 {
								e.b = protowire.AppendTag(e.b, 1, protowire.VarintType)
								e.b = protowire.AppendVarint(e.b, uint64(d.Value))
							}
						})
					}
				})
			}
		})
	})
	e.str(3, v.DocString)
}

// ---- decoding ----

// decodeFields calls f for each field of a message in b; f returns the
// number of bytes of the value it consumed, or a negative protowire
// error code. Fields f does not know it must skip with skip.
func decodeFields(b []byte, what string, f func(num protowire.Number, typ protowire.Type, b []byte) (int, error)) error {
	off := 0
	for off < len(b) {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return fmt.Errorf("%s: byte %d: bad field tag: %v", what, off, protowire.ParseError(n))
		}
		off += n
		m, err := f(num, typ, b[off:])
		if err != nil {
			return fmt.Errorf("%s: field %d: %w", what, num, err)
		}
		if m < 0 {
			return fmt.Errorf("%s: byte %d: field %d: %v", what, off, num, protowire.ParseError(m))
		}
		off += m
	}
	return nil
}

var errWireType = errors.New("unexpected wire type")

func skip(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
	return protowire.ConsumeFieldValue(num, typ, b), nil
}

func want(typ, w protowire.Type) error {
	if typ != w {
		return errWireType
	}
	return nil
}

func getBytes(typ protowire.Type, b []byte, dst *[]byte) (int, error) {
	if err := want(typ, protowire.BytesType); err != nil {
		return 0, err
	}
	v, n := protowire.ConsumeBytes(b)
	if n >= 0 {
		*dst = v
	}
	return n, nil
}

func getString(typ protowire.Type, b []byte, dst *string) (int, error) {
	var v []byte
	n, err := getBytes(typ, b, &v)
	*dst = string(v)
	return n, err
}

func getVarint(typ protowire.Type, b []byte, dst *int64) (int, error) {
	if err := want(typ, protowire.VarintType); err != nil {
		return 0, err
	}
	v, n := protowire.ConsumeVarint(b)
	*dst = int64(v)
	return n, nil
}

func getInt32(typ protowire.Type, b []byte, dst *int32) (int, error) {
	var v int64
	n, err := getVarint(typ, b, &v)
	*dst = int32(v)
	return n, err
}

// getInts reads a repeated varint field, packed or not.
func getInts(typ protowire.Type, b []byte, dst *[]int64) (int, error) {
	if typ == protowire.VarintType {
		var v int64
		n, err := getVarint(typ, b, &v)
		*dst = append(*dst, v)
		return n, err
	}
	var p []byte
	n, err := getBytes(typ, b, &p)
	if n < 0 || err != nil {
		return n, err
	}
	for len(p) > 0 {
		v, m := protowire.ConsumeVarint(p)
		if m < 0 {
			return 0, protowire.ParseError(m)
		}
		*dst = append(*dst, int64(v))
		p = p[m:]
	}
	return n, nil
}

// getFloats reads a repeated float field, packed or not.
func getFloats(typ protowire.Type, b []byte, dst *[]float32) (int, error) {
	return getFixed(typ, b, dst, 4, func(v uint64) float32 { return math.Float32frombits(uint32(v)) })
}

// getDoubles reads a repeated double field, packed or not.
func getDoubles(typ protowire.Type, b []byte, dst *[]float64) (int, error) {
	return getFixed(typ, b, dst, 8, math.Float64frombits)
}

// getFixed reads a repeated field of size-byte fixed-width values (4 or
// 8), packed or not, converting each from its bits.
func getFixed[T any](typ protowire.Type, b []byte, dst *[]T, size int, fromBits func(uint64) T) (int, error) {
	value := func(p []byte) uint64 {
		if size == 4 {
			return uint64(binary.LittleEndian.Uint32(p))
		}
		return binary.LittleEndian.Uint64(p)
	}
	wire := protowire.Fixed32Type
	if size == 8 {
		wire = protowire.Fixed64Type
	}
	if typ == wire {
		if len(b) < size {
			return 0, fmt.Errorf("%d bytes left for a %d-byte value", len(b), size)
		}
		*dst = append(*dst, fromBits(value(b)))
		return size, nil
	}
	var p []byte
	n, err := getBytes(typ, b, &p)
	if n < 0 || err != nil {
		return n, err
	}
	if len(p)%size != 0 {
		return 0, fmt.Errorf("packed values of %d bytes, not a multiple of %d", len(p), size)
	}
	for ; len(p) > 0; p = p[size:] {
		*dst = append(*dst, fromBits(value(p)))
	}
	return n, nil
}

// getMsg reads a nested message with dec.
func getMsg(typ protowire.Type, b []byte, dec func([]byte) error) (int, error) {
	var p []byte
	n, err := getBytes(typ, b, &p)
	if n < 0 || err != nil {
		return n, err
	}
	return n, dec(p)
}

// DecodeModel reads a .onnx file's bytes: the subset of ModelProto that
// Model holds. Unknown fields are skipped; a malformed message (a bad
// tag, a length past the end, a field of the wrong wire type) is an
// error naming the message, never a panic. Every value is copied out of
// data, and allocation is bounded by the size of data.
func DecodeModel(data []byte) (*Model, error) {
	m := &Model{}
	err := decodeFields(data, "model", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case 1:
			return getVarint(typ, b, &m.IRVersion)
		case 2:
			return getString(typ, b, &m.ProducerName)
		case 3:
			return getString(typ, b, &m.ProducerVersion)
		case 4:
			return getString(typ, b, &m.Domain)
		case 5:
			return getVarint(typ, b, &m.ModelVersion)
		case 6:
			return getString(typ, b, &m.DocString)
		case 7:
			m.Graph = &Graph{}
			return getMsg(typ, b, m.Graph.decode)
		case 8:
			var o OpsetID
			n, err := getMsg(typ, b, o.decode)
			m.OpsetImports = append(m.OpsetImports, o)
			return n, err
		}
		return skip(num, typ, b)
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func (o *OpsetID) decode(data []byte) error {
	return decodeFields(data, "opset_import", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case 1:
			return getString(typ, b, &o.Domain)
		case 2:
			return getVarint(typ, b, &o.Version)
		}
		return skip(num, typ, b)
	})
}

func (g *Graph) decode(data []byte) error {
	return decodeFields(data, "graph", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case 1:
			n := &Node{}
			g.Nodes = append(g.Nodes, n)
			return getMsg(typ, b, n.decode)
		case 2:
			return getString(typ, b, &g.Name)
		case 5:
			t := &Tensor{}
			g.Initializers = append(g.Initializers, t)
			return getMsg(typ, b, t.decode)
		case 10:
			return getString(typ, b, &g.DocString)
		case 11, 12, 13:
			v := &ValueInfo{}
			switch num {
			case 11:
				g.Inputs = append(g.Inputs, v)
			case 12:
				g.Outputs = append(g.Outputs, v)
			default:
				g.ValueInfo = append(g.ValueInfo, v)
			}
			return getMsg(typ, b, v.decode)
		}
		return skip(num, typ, b)
	})
}

func (nd *Node) decode(data []byte) error {
	return decodeFields(data, "node", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		var s string
		switch num {
		case 1:
			n, err := getString(typ, b, &s)
			nd.Inputs = append(nd.Inputs, s)
			return n, err
		case 2:
			n, err := getString(typ, b, &s)
			nd.Outputs = append(nd.Outputs, s)
			return n, err
		case 3:
			return getString(typ, b, &nd.Name)
		case 4:
			return getString(typ, b, &nd.OpType)
		case 5:
			a := &Attribute{}
			nd.Attributes = append(nd.Attributes, a)
			return getMsg(typ, b, a.decode)
		case 6:
			return getString(typ, b, &nd.DocString)
		case 7:
			return getString(typ, b, &nd.Domain)
		}
		return skip(num, typ, b)
	})
}

func (a *Attribute) decode(data []byte) error {
	return decodeFields(data, "attribute", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case 1:
			return getString(typ, b, &a.Name)
		case 2:
			if err := want(typ, protowire.Fixed32Type); err != nil {
				return 0, err
			}
			v, n := protowire.ConsumeFixed32(b)
			a.F = math.Float32frombits(v)
			return n, nil
		case 3:
			return getVarint(typ, b, &a.I)
		case 4:
			var v []byte
			n, err := getBytes(typ, b, &v)
			a.S = append([]byte(nil), v...)
			return n, err
		case 5:
			a.T = &Tensor{}
			return getMsg(typ, b, a.T.decode)
		case 7:
			return getFloats(typ, b, &a.Floats)
		case 8:
			return getInts(typ, b, &a.Ints)
		case 9:
			var v []byte
			n, err := getBytes(typ, b, &v)
			a.Strings = append(a.Strings, append([]byte(nil), v...))
			return n, err
		case 20:
			return getInt32(typ, b, &a.Type)
		}
		return skip(num, typ, b)
	})
}

func (t *Tensor) decode(data []byte) error {
	return decodeFields(data, "tensor", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case 1:
			return getInts(typ, b, &t.Dims)
		case 2:
			return getInt32(typ, b, &t.DataType)
		case 4:
			return getFloats(typ, b, &t.FloatData)
		case 5:
			var vs []int64
			n, err := getInts(typ, b, &vs)
			for _, v := range vs {
				t.Int32Data = append(t.Int32Data, int32(v))
			}
			return n, err
		case 7:
			return getInts(typ, b, &t.Int64Data)
		case 8:
			return getString(typ, b, &t.Name)
		case 9:
			var v []byte
			n, err := getBytes(typ, b, &v)
			t.RawData = append([]byte{}, v...)
			return n, err
		case 10:
			return getDoubles(typ, b, &t.DoubleData)
		}
		return skip(num, typ, b)
	})
}

func (v *ValueInfo) decode(data []byte) error {
	return decodeFields(data, "value_info", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case 1:
			return getString(typ, b, &v.Name)
		case 2:
			return getMsg(typ, b, v.decodeType)
		case 3:
			return getString(typ, b, &v.DocString)
		}
		return skip(num, typ, b)
	})
}

// decodeType reads TypeProto; only its tensor_type is kept.
func (v *ValueInfo) decodeType(data []byte) error {
	return decodeFields(data, "type", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		if num != 1 {
			return skip(num, typ, b)
		}
		return getMsg(typ, b, func(data []byte) error {
			return decodeFields(data, "tensor_type", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
				switch num {
				case 1:
					return getInt32(typ, b, &v.ElemType)
				case 2:
					v.HasShape = true
					return getMsg(typ, b, v.decodeShape)
				}
				return skip(num, typ, b)
			})
		})
	})
}

func (v *ValueInfo) decodeShape(data []byte) error {
	return decodeFields(data, "shape", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		if num != 1 {
			return skip(num, typ, b)
		}
		var d Dim
		n, err := getMsg(typ, b, func(data []byte) error {
			return decodeFields(data, "dim", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
				switch num {
				case 1:
					return getVarint(typ, b, &d.Value)
				case 2:
					return getString(typ, b, &d.Param)
				}
				return skip(num, typ, b)
			})
		})
		v.Shape = append(v.Shape, d)
		return n, err
	})
}
