package viz

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"html"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/render"
)

// HTMLOptions choose how an interactive page is written.
type HTMLOptions struct {
	// Title is the page title and the chart's heading.
	Title string
	// AssetsHost is where the page loads echarts.min.js from: a directory
	// URL ("https://…/", "file:///…/", "assets/") or a local directory
	// path. Empty means go-echarts' CDN, which needs a network; point it at
	// a local copy (the echarts package on npm ships dist/echarts.min.js)
	// for pages that must work offline.
	AssetsHost string
	// ChartID is the id of the chart's element (and names its script
	// variables). Empty means an id derived from the page's content, so
	// that the same input gives the same bytes and different charts on one
	// page do not collide.
	ChartID string
}

// defaultAssetsHost is go-echarts' CDN.
const defaultAssetsHost = "https://go-echarts.github.io/go-echarts-assets/assets/"

// placeholderID stands for the chart id until the content hash is known.
const placeholderID = "hybridgoChartIDPlaceholder"

// assetsHost turns HTMLOptions.AssetsHost into the prefix go-echarts puts
// before "echarts.min.js": a URL ending in a slash.
func (o HTMLOptions) assetsHost() string {
	h := o.AssetsHost
	switch {
	case h == "":
		return defaultAssetsHost
	case strings.Contains(h, "://"):
	case filepath.IsAbs(h):
		h = (&url.URL{Scheme: "file", Path: filepath.ToSlash(h)}).String()
	default:
		h = filepath.ToSlash(h)
	}
	if !strings.HasSuffix(h, "/") {
		h += "/"
	}
	return h
}

// useAssets makes a chart load echarts.min.js from o's host. go-echarts
// writes its own asset URLs through html/template, which replaces file:
// URLs with "#ZgotmplZ", so the script element is written here instead.
func (o HTMLOptions) useAssets(a *opts.Assets) {
	a.ClearPresetJSAssets()
	a.AddCustomizedHeaders(`<script src="` + html.EscapeString(o.assetsHost()+opts.EchartsJS) + `"></script>`)
	// go-echarts centres the chart with flexbox, which cuts off the left of
	// a chart wider than the window; "safe" centring scrolls instead.
	a.AddCustomizedHeaders(`<style>div.container { justify-content: safe center; }</style>`)
}

// initialization is the canvas setup shared by our pages. go-echarts'
// WithInitializationOpts replaces the whole struct, so everything is set
// here at once.
func (o HTMLOptions) initialization(title string, width, height int) opts.Initialization {
	return opts.Initialization{
		PageTitle:  title,
		Width:      fmt.Sprintf("%dpx", width),
		Height:     fmt.Sprintf("%dpx", height),
		ChartID:    placeholderID,
		AssetsHost: o.assetsHost(),
		Theme:      "white",
		Renderer:   "canvas",
	}
}

// renderChart renders a go-echarts chart and makes the result safe and
// deterministic: "</" inside the option's strings is written "<\/" (the same
// string in JavaScript) so that no name can end the script element, and the
// placeholder chart id becomes o.ChartID or a hash of the page.
func renderChart(r render.Renderer, o HTMLOptions) (page []byte, err error) {
	defer func() {
		// go-echarts panics when its template fails.
		if p := recover(); p != nil {
			page, err = nil, fmt.Errorf("viz: rendering the chart: %v", p)
		}
	}()
	page = r.RenderContent()
	start := []byte("let option_" + placeholderID + " = ")
	end := []byte("goecharts_" + placeholderID + ".setOption(")
	i := bytes.Index(page, start)
	j := bytes.Index(page, end)
	if i < 0 || j < i {
		return nil, fmt.Errorf("viz: unexpected chart page layout")
	}
	i += len(start)
	option := page[i:j]
	if bytes.Equal(bytes.TrimSpace(option), []byte(";")) || len(bytes.TrimSpace(option)) == 0 {
		return nil, fmt.Errorf("viz: the chart's options could not be encoded")
	}
	option = bytes.ReplaceAll(option, []byte("</"), []byte(`<\/`))
	page = append(append(append([]byte{}, page[:i]...), option...), page[j:]...)
	id := o.ChartID
	if id == "" {
		h := fnv.New64a()
		h.Write(page)
		id = fmt.Sprintf("hybridgo_%016x", h.Sum64())
	}
	return bytes.ReplaceAll(page, []byte(placeholderID), []byte(id)), nil
}

// jsFunc marks JavaScript code for go-echarts, which writes it into the page
// unquoted.
func jsFunc(code string) string { return string(opts.FuncOpts(code)) }
