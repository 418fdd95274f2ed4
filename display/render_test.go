package display

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"regexp"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

func keys(b Bundle) []string {
	var ks []string
	for k := range b {
		ks = append(ks, k)
	}
	return ks
}

func str(t *testing.T, b Bundle, mime string) string {
	t.Helper()
	s, ok := b[mime].(string)
	if !ok {
		t.Fatalf("no %s string in bundle with %v", mime, keys(b))
	}
	return s
}

// cells returns the table cells of an HTML table, row by row.
func cells(h string) [][]string {
	var rows [][]string
	for _, r := range regexp.MustCompile(`<tr>(.*?)</tr>`).FindAllStringSubmatch(h, -1) {
		var row []string
		for _, c := range regexp.MustCompile(`<td>(.*?)</td>`).FindAllStringSubmatch(r[1], -1) {
			row = append(row, c[1])
		}
		rows = append(rows, row)
	}
	return rows
}

func TestRenderNDArray2D(t *testing.T) {
	a := eager.Array([]float32{1, 2.5, 3, -4, 5, 6e-7}, 2, 3)
	b := Render(a)
	if got := str(t, b, MIMEText); got != a.String() {
		t.Errorf("text/plain %q, want the NDArray's String %q", got, a.String())
	}
	h := str(t, b, MIMEHTML)
	if !strings.Contains(h, ">NDArray 2x3 float32 @cpu(0)</caption>") {
		t.Errorf("caption missing:\n%s", h)
	}
	want := [][]string{{"1", "2.5", "3"}, {"-4", "5", "6e-07"}}
	if got := cells(h); !equalRows(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
}

func equalRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "|") != strings.Join(b[i], "|") {
			return false
		}
	}
	return true
}

func TestRenderNDArray1DAndDTypes(t *testing.T) {
	h := str(t, Render(eager.Array([]int32{7, 8, 9}, 3)), MIMEHTML)
	if !strings.Contains(h, "NDArray 3 int32 @cpu(0)") {
		t.Errorf("caption: %s", h)
	}
	if got := cells(h); !equalRows(got, [][]string{{"7", "8", "9"}}) {
		t.Errorf("1-D cells %v", got)
	}
	h = str(t, Render(eager.Array([]bool{true, false}, 2)), MIMEHTML)
	if got := cells(h); !equalRows(got, [][]string{{"True", "False"}}) {
		t.Errorf("bool cells %v", got)
	}
	h = str(t, Render(eager.Full(3, 1).Reshape()), MIMEHTML)
	if !strings.Contains(h, "NDArray scalar float32") || !strings.Contains(h, "<td>3</td>") {
		t.Errorf("scalar: %s", h)
	}
}

func TestRenderNDArray3D(t *testing.T) {
	vals := make([]float32, 2*2*3)
	for i := range vals {
		vals[i] = float32(i)
	}
	h := str(t, Render(eager.Array(vals, 2, 2, 3)), MIMEHTML)
	if n := strings.Count(h, "<table"); n != 2 {
		t.Errorf("%d tables, want 2:\n%s", n, h)
	}
	for _, s := range []string{"NDArray 2x2x3 float32 @cpu(0)", ">[0, :, :]</caption>", ">[1, :, :]</caption>"} {
		if !strings.Contains(h, s) {
			t.Errorf("no %q in\n%s", s, h)
		}
	}
	if got := cells(h); len(got) != 4 || got[2][0] != "6" || got[3][2] != "11" {
		t.Errorf("cells %v", got)
	}
	// Many leading indices: the first and last few tables only.
	h = str(t, Render(eager.Zeros(4, 5, 2, 2)), MIMEHTML)
	if n := strings.Count(h, "<table"); n != 2*tablesEdge {
		t.Errorf("%d tables of 20, want %d", n, 2*tablesEdge)
	}
	if !strings.Contains(h, "[3, 4, :, :]") || !strings.Contains(h, "<div>…</div>") {
		t.Errorf("abbreviated tables: %s", h)
	}
}

func TestRenderNDArrayLarge(t *testing.T) {
	vals := make([]float32, 100*50)
	for i := range vals {
		vals[i] = float32(i)
	}
	h := str(t, Render(eager.Array(vals, 100, 50)), MIMEHTML)
	rows := cells(h)
	n := 2*tableEdgeItems + 1
	if len(rows) != n {
		t.Fatalf("%d rows, want %d", len(rows), n)
	}
	for _, r := range rows {
		if len(r) != n {
			t.Fatalf("row of %d cells, want %d", len(r), n)
		}
	}
	if rows[0][0] != "0" || rows[0][n-1] != "49" || rows[0][tableEdgeItems] != "…" {
		t.Errorf("first row %v", rows[0])
	}
	if rows[tableEdgeItems][0] != "⋮" || rows[tableEdgeItems][tableEdgeItems] != "⋱" {
		t.Errorf("middle row %v", rows[tableEdgeItems])
	}
	if rows[n-1][n-1] != "4999" {
		t.Errorf("last cell %q", rows[n-1][n-1])
	}
	if len(h) > 5000 {
		t.Errorf("HTML of a 100x50 array is %d bytes", len(h))
	}
}

func TestRenderNDArrayHTMLIsInert(t *testing.T) {
	vals := []float32{float32(nanf()), 1, float32(-infF())}
	h := str(t, Render(eager.Array(vals, 3)), MIMEHTML)
	if strings.Contains(h, "<script") || strings.Contains(h, "javascript:") {
		t.Errorf("script in an array's HTML: %s", h)
	}
	if got := cells(h); !equalRows(got, [][]string{{"nan", "1", "-inf"}}) {
		t.Errorf("cells %v", got)
	}
	// Every tag is one of the few the table uses.
	for _, m := range regexp.MustCompile(`</?([a-z]+)`).FindAllStringSubmatch(h, -1) {
		switch m[1] {
		case "div", "table", "caption", "tr", "td":
		default:
			t.Errorf("unexpected tag <%s>", m[1])
		}
	}
	if c := Caption(eager.Zeros(2)); strings.ContainsAny(c, "<>&\"") {
		t.Errorf("caption %q", c)
	}
}

func nanf() float64 { var z float64; return z / z }
func infF() float64 { var z float64; return 1 / z }

func testSymbol() *graph.Symbol {
	tr := graph.NewTracer()
	F := tr.F()
	x := ops.Tensor(graph.Var("data", ops.Shape{4, 8}, ops.Float32))
	w := graph.Var("fc_weight", ops.Shape{3, 8}, ops.Float32)
	bias := graph.Var("fc_bias", ops.Shape{3}, ops.Float32)
	return F.Relu(F.FullyConnected(x, w, bias, 3)).(*graph.Symbol)
}

// checkGraphBundle checks a graph's bundle: text, SVG, and HTML that
// loads echarts with require.js' define hidden.
func checkGraphBundle(t *testing.T, b Bundle) {
	t.Helper()
	if str(t, b, MIMEText) == "" {
		t.Error("empty text/plain")
	}
	if svg := str(t, b, MIMESVG); !strings.HasPrefix(svg, "<svg") {
		t.Errorf("image/svg+xml starts %.40q", svg)
	}
	h := str(t, b, MIMEHTML)
	for _, bad := range []string{"<html", "<head", "<body", "let goecharts_", "let option_"} {
		if strings.Contains(h, bad) {
			t.Errorf("embedded chart contains %q", bad)
		}
	}
	if regexp.MustCompile(`(^|[^.\w])define\s*\(`).MatchString(h) {
		t.Error("bare define( call in the HTML")
	}
	if strings.Count(h, "<script") != 1 || strings.Contains(h, "<script src") {
		t.Errorf("want one inline script, loading echarts itself:\n%s", h)
	}
	// The guard: define saved and hidden before the library loads, put
	// back in its load handler.
	hide := strings.Index(h, "w.define = undefined")
	save := strings.Index(h, "savedDefine = w.define")
	load := strings.Index(h, "document.head.appendChild(s)")
	restore := strings.Index(h, "w.define = savedDefine")
	if save < 0 || hide < save || load < hide || restore < 0 || restore > load {
		t.Errorf("require.js guard out of order (save %d hide %d restore %d load %d)", save, hide, restore, load)
	}
	if !strings.Contains(h, `"echarts.min.js"`) && !strings.Contains(h, `echarts.min.js"`) {
		t.Error("echarts.min.js not loaded")
	}
	if !strings.Contains(h, "setOption({") {
		t.Error("no chart options")
	}
	// No "</" inside the script could close it early.
	script := h[strings.Index(h, "<script"):]
	body := script[strings.Index(script, ">")+1 : strings.LastIndex(script, "</script>")]
	if strings.Contains(body, "</") {
		t.Error(`"</" inside the script`)
	}
}

func TestRenderSymbol(t *testing.T) {
	s := testSymbol()
	b := Render(s)
	checkGraphBundle(t, b)
	if b.Text() != s.String() {
		t.Errorf("text/plain %q", b.Text())
	}
	// Deterministic: the same graph gives the same bundle.
	if Render(s)[MIMEHTML] != b[MIMEHTML] {
		t.Error("two renders of one graph differ")
	}
}

func TestEmbedChartHost(t *testing.T) {
	old := EchartsHost
	defer func() { EchartsHost = old }()
	EchartsHost = "files/assets/"
	h := str(t, Render(testSymbol()), MIMEHTML)
	if !strings.Contains(h, `src = "files/assets/echarts.min.js"`) {
		t.Errorf("EchartsHost not used:\n%.600s", h)
	}
	if _, err := EmbedChart([]byte("<html>no chart</html>")); err == nil {
		t.Error("EmbedChart of a page without a chart: no error")
	}
}

func TestRenderHybridizedBlock(t *testing.T) {
	net := nn.NewHybridSequential(nn.NewDense(4), nn.NewDense(2))
	net.Initialize()
	x := eager.RandomNormal(3, 5)
	if b := Render(net); len(b) != 1 || b[MIMEText] == nil {
		t.Errorf("a block that has not run hybridized: %v", keys(b))
	}
	net.Hybridize()
	net.Forward(x)
	if net.LastGraph() == nil {
		t.Fatal("no graph after a hybridized call")
	}
	checkGraphBundle(t, Render(net))
}

func TestRenderImage(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 2, color.RGBA{200, 10, 20, 255})
	b := Render(img)
	if b.Text() != "<image 4x3>" {
		t.Errorf("text/plain %q", b.Text())
	}
	raw, err := base64.StdEncoding.DecodeString(str(t, b, MIMEPNG))
	if err != nil {
		t.Fatal(err)
	}
	back, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if back.Bounds() != img.Bounds() {
		t.Errorf("decoded bounds %v", back.Bounds())
	}
	if r, g, bl, _ := back.At(1, 2).RGBA(); r>>8 != 200 || g>>8 != 10 || bl>>8 != 20 {
		t.Errorf("pixel (1,2) decoded as %d %d %d", r>>8, g>>8, bl>>8)
	}
}

type custom struct{}

func (custom) MIMEBundle() map[string]any {
	return map[string]any{"text/latex": `$x^2$`, MIMEText: "x^2"}
}

func TestRenderCustomAndOthers(t *testing.T) {
	b := Render(custom{})
	if b["text/latex"] != `$x^2$` || b.Text() != "x^2" || len(b) != 2 {
		t.Errorf("custom bundle %v", b)
	}
	if b := Render(42); len(b) != 1 || b.Text() != "42" {
		t.Errorf("Render(42) = %v", b)
	}
	if b := Render(nil); b.Text() != "<nil>" {
		t.Errorf("Render(nil) = %v", b)
	}
	var a *eager.NDArray
	if b := Render(a); len(b) != 1 || b.Text() != "<nil>" {
		t.Errorf("Render of a nil NDArray = %v", b)
	}
	given := Bundle{MIMEHTML: "<b>x</b>"}
	if b := Render(given); b[MIMEHTML] != "<b>x</b>" {
		t.Errorf("Render of a Bundle = %v", b)
	}
	j := JSONBundle(map[string]int{"a": 1})
	if raw, ok := j[MIMEJSON].(json.RawMessage); !ok || string(raw) != `{"a":1}` {
		t.Errorf("JSON bundle %v", j)
	}
	if JSONBundle(func() {})[MIMEJSON] != nil {
		t.Error("JSON of a func has application/json")
	}
}

type panicky struct{}

func (panicky) MIMEBundle() map[string]any { panic("broken renderer") }
func (panicky) String() string             { return "panicky value" }

// A nil block (a cell's `var d *nn.Dense`) and a renderer that panics
// both come out as text.
func TestRenderNilBlockAndPanic(t *testing.T) {
	var d *nn.Dense
	if b := Render(d); len(b) != 1 || b.Text() != "<nil>" {
		t.Errorf("Render of a nil *nn.Dense = %v", b)
	}
	var s *graph.Symbol
	if b := Render(s); len(b) != 1 || b.Text() != "<nil>" {
		t.Errorf("Render of a nil *graph.Symbol = %v", b)
	}
	if b := Render(panicky{}); len(b) != 1 || b.Text() != "panicky value" {
		t.Errorf("Render of a panicking renderer = %v", b)
	}
}

// The interactive graph carries the static SVG, shown until echarts draws
// and kept when it cannot load (offline, untrusted).
func TestGraphHTMLHasStaticFallback(t *testing.T) {
	x := graph.Var("data", ops.Shape{2, 3}, ops.Float32)
	b := Render(graph.F.Relu(x))
	h, _ := b[MIMEHTML].(string)
	fb := strings.Index(h, `class="hybridgo-fallback"`)
	chart := strings.Index(h, `class="hybridgo-chart"`)
	if fb < 0 || chart < fb || !strings.Contains(h[fb:chart], "<svg") {
		t.Fatalf("no SVG fallback before the chart:\n%.400s", h)
	}
	if !strings.Contains(h[chart:], "display:none") {
		t.Error("the chart div is not hidden until it draws")
	}
}
