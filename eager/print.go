package eager

import (
	"math"
	"strconv"
	"strings"

	"github.com/hybridgo/hybridgo/ops"
)

// Printing follows numpy's array formatting, which MXNet's NDArray uses:
// values aligned in columns, floats with up to 8 decimals and trailing
// zeros trimmed ("1." for whole numbers), scientific notation when the
// magnitudes call for it, long lines wrapped at 75 columns, and arrays of
// more than 1000 elements shown by their first and last 3 items per axis.
const (
	printThreshold = 1000
	printEdgeItems = 3
	printLineWidth = 75
	printPrecision = 8
)

// String prints the values, then MXNet's footer: "<NDArray 2x3 @cpu(0)>".
// Arrays of a dtype other than float32 name it: "<NDArray 3 int32 @cpu(0)>".
func (a *NDArray) String() string {
	var b strings.Builder
	b.WriteString(FormatValues(a.shape, a.data))
	b.WriteString("\n<NDArray ")
	if len(a.shape) == 0 {
		b.WriteString("scalar")
	} else {
		b.WriteString(a.shape.String())
	}
	if a.dtype != ops.Float32 {
		b.WriteString(" " + a.dtype.String())
	}
	b.WriteString(" @" + a.Context().String() + ">")
	return b.String()
}

// FormatValues prints an array's values the way numpy's str() does.
func FormatValues(shape ops.Shape, data any) string {
	n := shape.Size()
	summarize := n > printThreshold
	fmtr := newElemFormatter(shape, data, summarize)
	if len(shape) == 0 {
		return fmtr.format(0)
	}
	var b strings.Builder
	p := printer{shape: shape, strides: shape.Strides(), f: fmtr, summarize: summarize, b: &b}
	p.block(0, 0, " ")
	return b.String()
}

type printer struct {
	shape     ops.Shape
	strides   []int
	f         elemFormatter
	summarize bool
	b         *strings.Builder
}

// indices lists the indices of a dim to show (-1 stands for "...").
func (p *printer) indices(dim int) []int {
	n := p.shape[dim]
	return AbbreviatedIndices(n, printEdgeItems, p.summarize && n > 2*printEdgeItems)
}

// AbbreviatedIndices lists the indices 0…n-1 of an axis to show; when
// abbreviate is set, only the first and last edge of them, with -1
// standing for the "…" between.
func AbbreviatedIndices(n, edge int, abbreviate bool) []int {
	var idx []int
	if abbreviate {
		for i := 0; i < edge; i++ {
			idx = append(idx, i)
		}
		idx = append(idx, -1)
		for i := n - edge; i < n; i++ {
			idx = append(idx, i)
		}
		return idx
	}
	for i := 0; i < n; i++ {
		idx = append(idx, i)
	}
	return idx
}

// block prints the sub-array at dim starting at offset; indent is the
// whitespace that continuation lines start with.
func (p *printer) block(dim, offset int, indent string) {
	b := p.b
	b.WriteByte('[')
	last := dim == len(p.shape)-1
	idx := p.indices(dim)
	if last {
		lineLen := len(indent)
		for k, i := range idx {
			s := "..."
			if i >= 0 {
				s = p.f.format(offset + i)
			}
			sep := ""
			if k > 0 {
				sep = " "
			}
			// numpy's rule: leave room for the closing brackets of every
			// enclosing dim.
			if k > 0 && lineLen+len(sep)+len(s) > printLineWidth-1-dim {
				b.WriteString("\n" + indent)
				lineLen = len(indent)
				sep = ""
			}
			b.WriteString(sep + s)
			lineLen += len(sep) + len(s)
		}
		b.WriteByte(']')
		return
	}
	gap := strings.Repeat("\n", len(p.shape)-dim-1)
	for k, i := range idx {
		if k > 0 {
			b.WriteString(gap + indent)
		}
		if i < 0 {
			b.WriteString("...")
			continue
		}
		p.block(dim+1, offset+i*p.strides[dim], indent+" ")
	}
	b.WriteByte(']')
}

// elemFormatter prints one element, padded to a common width.
type elemFormatter struct {
	data  any
	kind  byte // 'f' fixed, 'e' scientific, 'i' integer, 'b' bool
	intW  int  // width of the integer part (floats) or of the whole (int, bool)
	fracW int  // digits after the point
	bits  int  // 32 or 64
}

func newElemFormatter(shape ops.Shape, data any, summarize bool) elemFormatter {
	f := elemFormatter{data: data, bits: 64}
	var shown []int
	if summarize {
		shown = shownIndices(shape)
	} else {
		shown = make([]int, shape.Size())
		for i := range shown {
			shown[i] = i
		}
	}
	switch d := data.(type) {
	case []bool:
		f.kind = 'b'
		for _, i := range shown {
			f.intW = max(f.intW, len(boolString(d[i])))
		}
		return f
	case []float32, []float64:
	default:
		f.kind = 'i'
		for _, i := range shown {
			f.intW = max(f.intW, len(strconv.FormatInt(int64(at(data, i)), 10)))
		}
		return f
	}
	if _, ok := data.([]float32); ok {
		f.bits = 32
	}
	f.kind = 'f'
	maxAbs, minAbs := 0.0, math.Inf(1)
	for _, i := range shown {
		v := math.Abs(at(data, i))
		if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			continue
		}
		maxAbs = max(maxAbs, v)
		minAbs = min(minAbs, v)
	}
	if maxAbs >= 1e8 || (maxAbs > 0 && (minAbs < 1e-4 || maxAbs/minAbs > 1e3)) {
		f.kind = 'e'
	}
	special := 0 // widest of nan, inf, -inf among the values
	for _, i := range shown {
		v := at(data, i)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			special = max(special, len(nonFinite(v)))
			continue
		}
		ip, fp, _ := f.parts(v)
		f.intW = max(f.intW, len(ip))
		f.fracW = max(f.fracW, len(fp))
	}
	// A nan or inf takes the whole width of a number; widen the integer
	// part if it is longer (numpy's rule).
	f.intW = max(f.intW, special-f.fracW-1)
	return f
}

func boolString(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func nonFinite(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case v > 0:
		return "inf"
	}
	return "-inf"
}

// parts splits a finite float's shortest representation (at most 8
// digits after the point) into the digits before the point (with sign),
// the digits after it, and in scientific mode the exponent.
func (f elemFormatter) parts(v float64) (ip, fp, exp string) {
	if f.kind == 'e' {
		s := strconv.FormatFloat(v, 'e', -1, f.bits)
		mant, e, _ := strings.Cut(s, "e")
		if i := strings.IndexByte(mant, '.'); i >= 0 && len(mant)-i-1 > printPrecision {
			s = strconv.FormatFloat(v, 'e', printPrecision, f.bits)
			mant, e, _ = strings.Cut(s, "e")
			mant = strings.TrimRight(mant, "0")
		}
		ip, fp, _ = strings.Cut(mant, ".")
		return ip, fp, formatExp(e)
	}
	s := strconv.FormatFloat(v, 'f', -1, f.bits)
	ip, fp, _ = strings.Cut(s, ".")
	if len(fp) > printPrecision {
		s = strings.TrimRight(strconv.FormatFloat(v, 'f', printPrecision, 64), "0")
		ip, fp, _ = strings.Cut(s, ".")
	}
	return ip, fp, ""
}

func (f elemFormatter) format(i int) string {
	switch f.kind {
	case 'b':
		return padLeft(boolString(f.data.([]bool)[i]), f.intW)
	case 'i':
		return padLeft(strconv.FormatInt(int64(at(f.data, i)), 10), f.intW)
	}
	v := at(f.data, i)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		w := f.intW + 1 + f.fracW
		if f.kind == 'e' {
			w += 4 // "e+00"
		}
		return padLeft(nonFinite(v), w)
	}
	ip, fp, exp := f.parts(v)
	if f.kind == 'e' {
		return padLeft(ip, f.intW) + "." + fp + strings.Repeat("0", f.fracW-len(fp)) + "e" + exp
	}
	return padLeft(ip, f.intW) + "." + fp + strings.Repeat(" ", f.fracW-len(fp))
}

// shownIndices lists the flat indices that summarised printing shows.
func shownIndices(shape ops.Shape) []int {
	idx := []int{0}
	strides := shape.Strides()
	for d := range shape {
		var next []int
		n := shape[d]
		for _, base := range idx {
			for i := 0; i < n; i++ {
				if n > 2*printEdgeItems && i >= printEdgeItems && i < n-printEdgeItems {
					continue
				}
				next = append(next, base+i*strides[d])
			}
		}
		idx = next
	}
	return idx
}

// formatExp prints an exponent with a sign and at least two digits: "-05".
func formatExp(e string) string {
	sign := "+"
	if strings.HasPrefix(e, "-") || strings.HasPrefix(e, "+") {
		if e[0] == '-' {
			sign = "-"
		}
		e = e[1:]
	}
	if len(e) < 2 {
		e = "0" + e
	}
	return sign + e
}

func padLeft(s string, w int) string {
	if len(s) >= w {
		return s
	}
	return strings.Repeat(" ", w-len(s)) + s
}

func at(data any, i int) float64 {
	switch d := data.(type) {
	case []float32:
		return float64(d[i])
	case []float64:
		return d[i]
	case []uint8:
		return float64(d[i])
	case []int8:
		return float64(d[i])
	case []int32:
		return float64(d[i])
	case []int64:
		return float64(d[i])
	case []bool:
		if d[i] {
			return 1
		}
	}
	return 0
}
