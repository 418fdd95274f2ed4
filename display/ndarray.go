package display

import (
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// How much of an array the HTML table shows: an axis longer than
// tableMaxItems shows its first and last tableEdgeItems entries around a
// "…"; the same for the number of tables of an array of 3 or more dims.
const (
	tableMaxItems  = 20
	tableEdgeItems = 8
	tablesMax      = 8
	tablesEdge     = 3
)

// ndarrayBundle is an NDArray's text/plain and text/html.
func ndarrayBundle(a *eager.NDArray) Bundle {
	return Bundle{MIMEText: a.String(), MIMEHTML: NDArrayHTML(a)}
}

// Caption is the array's description: "NDArray 2x3 float32 @cpu(0)".
func Caption(a *eager.NDArray) string {
	shape := "scalar"
	if a.NDim() > 0 {
		shape = a.Shape().String()
	}
	return "NDArray " + shape + " " + a.DType().String() + " @" + a.Context().String()
}

// shown lists the indices of an axis of length n to show, -1 standing for
// the "…" between the first and last edge items when n is over max.
func shown(n, max, edge int) []int { return eager.AbbreviatedIndices(n, edge, n > max) }

// NDArrayHTML writes the array's values as HTML tables (see Render).
func NDArrayHTML(a *eager.NDArray) string {
	shape := a.Shape()
	vals := a.Float64s()
	f := cellFormatter(a.DType())
	var b strings.Builder
	b.WriteString(`<div class="hybridgo-ndarray">` + "\n")
	switch len(shape) {
	case 0:
		openTable(&b, Caption(a))
		b.WriteString("<tr><td>" + html.EscapeString(f(vals[0])) + "</td></tr>\n</table>\n")
	case 1:
		openTable(&b, Caption(a))
		writeMatrix(&b, vals, 1, shape[0], 0, f)
		b.WriteString("</table>\n")
	case 2:
		openTable(&b, Caption(a))
		writeMatrix(&b, vals, shape[0], shape[1], 0, f)
		b.WriteString("</table>\n")
	default:
		lead := shape[:len(shape)-2]
		rows, cols := shape[len(shape)-2], shape[len(shape)-1]
		nTables := lead.Size()
		b.WriteString(`<div class="hybridgo-caption" style="font-weight:bold">` + html.EscapeString(Caption(a)) + "</div>\n")
		for _, t := range shown(nTables, tablesMax, tablesEdge) {
			if t < 0 {
				b.WriteString("<div>…</div>\n")
				continue
			}
			openTable(&b, leadIndex(lead, t))
			writeMatrix(&b, vals, rows, cols, t*rows*cols, f)
			b.WriteString("</table>\n")
		}
	}
	b.WriteString("</div>")
	return b.String()
}

// leadIndex names the t-th matrix of an array with leading dims lead:
// "[1, 2, :, :]".
func leadIndex(lead ops.Shape, t int) string {
	idx := make([]string, len(lead)+2)
	for d := len(lead) - 1; d >= 0; d-- {
		idx[d] = strconv.Itoa(t % lead[d])
		t /= lead[d]
	}
	idx[len(lead)], idx[len(lead)+1] = ":", ":"
	return "[" + strings.Join(idx, ", ") + "]"
}

func openTable(b *strings.Builder, caption string) {
	b.WriteString(`<table class="hybridgo-ndarray-table" style="font-family:monospace;text-align:right">` + "\n")
	// On one line: a caption wraps to the table's width, which for a
	// small array is narrower than its name (classic Notebook).
	b.WriteString(`<caption style="white-space:nowrap;text-align:left">` + html.EscapeString(caption) + "</caption>\n")
}

// writeMatrix writes rows x cols values starting at off, as table rows.
func writeMatrix(b *strings.Builder, vals []float64, rows, cols, off int, f func(float64) string) {
	colIdx := shown(cols, tableMaxItems, tableEdgeItems)
	for _, r := range shown(rows, tableMaxItems, tableEdgeItems) {
		b.WriteString("<tr>")
		for _, c := range colIdx {
			switch {
			case r < 0 && c < 0:
				b.WriteString("<td>⋱</td>")
			case r < 0:
				b.WriteString("<td>⋮</td>")
			case c < 0:
				b.WriteString("<td>…</td>")
			default:
				b.WriteString("<td>" + html.EscapeString(f(vals[off+r*cols+c])) + "</td>")
			}
		}
		b.WriteString("</tr>\n")
	}
}

// cellFormatter formats one value of a dtype: floats to 6 significant
// digits (float64: 10), integers in full, booleans as True and False.
func cellFormatter(dt ops.DType) func(float64) string {
	switch {
	case dt == ops.Bool:
		return func(v float64) string {
			if v != 0 {
				return "True"
			}
			return "False"
		}
	case dt.IsFloat():
		prec := 6
		if dt == ops.Float64 {
			prec = 10
		}
		return func(v float64) string {
			switch {
			case math.IsNaN(v):
				return "nan"
			case math.IsInf(v, 1):
				return "inf"
			case math.IsInf(v, -1):
				return "-inf"
			}
			return strconv.FormatFloat(v, 'g', prec, 64)
		}
	default:
		return func(v float64) string { return strconv.FormatInt(int64(v), 10) }
	}
}
