package display

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"maps"
	"reflect"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/profiler"
	"github.com/hybridgo/hybridgo/viz"
)

// Bundle maps MIME types to content: a string for text formats and for
// base64-encoded images, a json.RawMessage (or any JSON-encodable value)
// for application/json.
type Bundle map[string]any

// The MIME types used here.
const (
	MIMEText     = "text/plain"
	MIMEHTML     = "text/html"
	MIMEMarkdown = "text/markdown"
	MIMESVG      = "image/svg+xml"
	MIMEPNG      = "image/png"
	MIMEJSON     = "application/json"
)

// Text returns the bundle's text/plain entry, or "" when it has none.
func (b Bundle) Text() string {
	s, _ := b[MIMEText].(string)
	return s
}

// MIMEBundler is implemented by values that render themselves.
type MIMEBundler interface {
	MIMEBundle() map[string]any
}

// grapher is a block that can report the graph of its latest hybridized
// call (nn.HybridBlock and everything embedding it).
type grapher interface {
	LastGraph() *graph.Symbol
}

// Render returns the MIME bundle that displays v (see the package
// documentation for what each kind of value gives). A nil v, or a nil
// pointer of any type, gives the text "<nil>"; a renderer that panics
// gives the value's %v text instead.
func Render(v any) (b Bundle) {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return Bundle{MIMEText: "<nil>"}
	}
	defer func() {
		if r := recover(); r != nil {
			b = Bundle{MIMEText: fmt.Sprintf("%v", v)}
		}
	}()
	return render(v)
}

func render(v any) Bundle {
	switch x := v.(type) {
	case nil:
		return Bundle{MIMEText: "<nil>"}
	case Bundle:
		return maps.Clone(x)
	case MIMEBundler:
		m := x.MIMEBundle()
		if m == nil {
			break
		}
		b := make(Bundle, len(m))
		for k, c := range m {
			b[k] = c
		}
		return b
	case *eager.NDArray:
		if x != nil {
			return ndarrayBundle(x)
		}
	case *graph.Symbol:
		if x != nil {
			return symbolBundle(x)
		}
	case *profiler.Comparison:
		return comparisonBundle(x)
	case *profiler.Profile:
		return profileBundle(x)
	case image.Image:
		if b, ok := imageBundle(x); ok {
			return b
		}
	case grapher:
		if s := x.LastGraph(); s != nil {
			return symbolBundle(s)
		}
	}
	// A block, also one whose type was defined in interpreted Go: its graph
	// once hybridized, else its tree of children.
	if g, ok := nn.LastGraphOf(v); ok && g != nil {
		b := symbolBundle(g)
		if tree, ok := nn.Describe(v); ok {
			b[MIMEText] = tree
		}
		return b
	}
	if tree, ok := nn.Describe(v); ok {
		return Bundle{MIMEText: tree}
	}
	return Bundle{MIMEText: fmt.Sprintf("%v", v)}
}

// imageBundle encodes img as PNG.
func imageBundle(img image.Image) (Bundle, bool) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, false
	}
	r := img.Bounds()
	return Bundle{
		MIMEPNG:  base64.StdEncoding.EncodeToString(buf.Bytes()),
		MIMEText: fmt.Sprintf("<image %dx%d>", r.Dx(), r.Dy()),
	}, true
}

// symbolBundle draws a graph as SVG and as an embeddable interactive
// chart; a drawing that fails is left out, and its error noted in the text.
func symbolBundle(s *graph.Symbol) Bundle {
	b := Bundle{MIMEText: s.String()}
	g := s.Graph()
	if svg, err := viz.DrawSVG(g, viz.DefaultOptions()); err == nil {
		b[MIMESVG] = string(svg)
	} else {
		b[MIMEText] = s.String() + "\n(no drawing: " + err.Error() + ")"
		return b
	}
	title := s.Name()
	if title == "" {
		title = "graph"
	}
	page, err := viz.DrawHTML(g, viz.DefaultOptions(), viz.HTMLOptions{Title: title, AssetsHost: EchartsHost})
	if err == nil {
		if h, err := EmbedChart(page, b[MIMESVG].(string)); err == nil {
			b[MIMEHTML] = h
		}
	}
	return b
}
