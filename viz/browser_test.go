package viz_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hybridgo/hybridgo/internal/echartstest"
	"github.com/hybridgo/hybridgo/viz"
)

// TestBrowser renders the package's pictures in headless Chromium, as a
// person would see them, and checks the screenshots: the static SVG, the
// interactive graph page of LeNet and the line chart page (with echarts
// installed from npm into a temporary directory), and the profiler's
// timeline as SVG and as a page. The screenshots are kept
// in $HYBRIDGO_ARTIFACTS when it is set, else in the test's temporary
// directory; their paths are logged.
func TestBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("skipped: chromium is not on PATH (Debian: apt-get install chromium; `make deps` installs it when run as root)")
	}
	if testing.Short() {
		t.Skip("skipped in -short mode: it starts a browser")
	}
	out := artifactsDir(t)
	assets := installEcharts(t)
	b := &browser{path: chromium, dir: out}

	nan := math.NaN()
	curves := []viz.Series{
		{Name: "train loss", X: []float64{1, 2, 3, 4, 5, 6, 7, 8}, Y: []float64{1.9, 0.9, 0.7, 0.6, 0.55, 0.52, 0.5, 0.49}},
		{Name: "validation loss", X: []float64{1, 2, 3, 4, 5, 6, 7, 8}, Y: []float64{1.2, 0.8, 0.66, nan, 0.6, 0.59, 0.6, 0.61}},
		{Name: "accuracy", X: []float64{1, 2, 3, 4, 5, 6, 7, 8}, Y: []float64{0.6, 0.72, 0.78, 0.81, 0.83, 0.84, 0.85, 0.855}},
	}

	graphKinds := []string{"input", "conv", "dense", "pool", "activation", "shape"}

	t.Run("GraphSVG", func(t *testing.T) {
		l, err := viz.LayoutGraph(lenet(t), viz.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		page := b.write(t, "lenet.svg", viz.SVG(l, viz.SVGOptions{Title: "LeNet", Legend: true}))
		img, _ := b.screenshot(t, page, int(l.Width)+200, int(l.Height)+80)
		checkNotBlank(t, img, 0.03)
		for _, kind := range graphKinds {
			checkColor(t, img, viz.KindColor(kind), 200, kind)
		}
	})

	t.Run("LineChartSVG", func(t *testing.T) {
		page := b.write(t, "chart.svg", viz.LineChartSVG("LeNet on Fashion-MNIST", curves, 800, 480))
		img, _ := b.screenshot(t, page, 820, 500)
		checkNotBlank(t, img, 0.01)
		for i := range curves {
			checkColor(t, img, viz.SeriesColor(i), 40, curves[i].Name)
		}
	})

	t.Run("GraphHTML", func(t *testing.T) {
		l, err := viz.LayoutGraph(lenet(t), viz.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		data, err := viz.HTML(l, viz.HTMLOptions{Title: "LeNet", AssetsHost: assets})
		if err != nil {
			t.Fatal(err)
		}
		img := b.checkPage(t, "lenet.html", data, 900, int(l.Height)+200, 0.03)
		for _, kind := range graphKinds {
			checkColor(t, img, viz.KindColor(kind), 200, kind)
		}
	})

	t.Run("LineChartHTML", func(t *testing.T) {
		data, err := viz.LineChartHTML("LeNet on Fashion-MNIST", curves, viz.HTMLOptions{AssetsHost: assets})
		if err != nil {
			t.Fatal(err)
		}
		img := b.checkPage(t, "chart.html", data, 1000, 600, 0.01)
		for i := range curves {
			checkColor(t, img, viz.SeriesColor(i), 40, curves[i].Name)
		}
	})

	// The profiler's timeline: the SVG fallback and the echarts page draw
	// the same bars in the kinds' colours.
	t.Run("Timeline", func(t *testing.T) {
		kinds := []string{"conv", "activation", "fused", "block"}
		img, _ := b.screenshot(t, b.write(t, "timeline.svg", viz.TimelineSVG(testTimeline, 800)), 820, 300)
		checkNotBlank(t, img, 0.03)
		for _, kind := range kinds {
			checkColor(t, img, viz.KindColor(kind), 200, kind)
		}
		data, err := viz.TimelineHTML(testTimeline, viz.HTMLOptions{AssetsHost: assets})
		if err != nil {
			t.Fatal(err)
		}
		img = b.checkPage(t, "timeline.html", data, 1000, 500, 0.03)
		for _, kind := range kinds {
			checkColor(t, img, viz.KindColor(kind), 200, kind)
		}
	})

	// The checks above would catch a page without echarts: it logs
	// "echarts is not defined" and stays blank.
	t.Run("WithoutEcharts", func(t *testing.T) {
		data, err := viz.HTML(&viz.Layout{Width: 100, Height: 100}, viz.HTMLOptions{AssetsHost: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		img, log := b.screenshot(t, b.write(t, "no-echarts.html", data), 400, 300)
		if !strings.Contains(log, "echarts is not defined") {
			t.Errorf("a page without echarts.min.js did not log \"echarts is not defined\"; the browser's log:\n%s", log)
		}
		if f := nonWhite(img); f > 0.001 {
			t.Errorf("a page without echarts.min.js is not blank: %.2f%% of it is not white", 100*f)
		}
	})
}

// artifactsDir is where the pages and screenshots go.
func artifactsDir(t *testing.T) string {
	dir := os.Getenv("HYBRIDGO_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	dir = filepath.Join(dir, "viz")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// installEcharts puts echarts.min.js into a temporary directory and
// returns it; the test skips when npm cannot fetch it.
func installEcharts(t *testing.T) string {
	dir := t.TempDir()
	pkg, err := echartstest.Fetch(dir)
	if errors.Is(err, echartstest.ErrUnavailable) {
		t.Skipf("skipped: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("echarts: %s", pkg)
	return dir
}

// browser runs headless Chromium on files in dir.
type browser struct {
	path, dir string
}

// write saves a page in the browser's directory and returns its path.
func (b *browser) write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(b.dir, name)
	if err := viz.WriteFile(p, data); err != nil {
		t.Fatal(err)
	}
	return p
}

// run starts Chromium with a fresh profile on a file and returns its
// stdout and its log (stderr, with the page's console messages).
func (b *browser) run(t *testing.T, page string, args ...string) (stdout []byte, log string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=5000",
		"--enable-logging=stderr", "--v=0",
	}, args...)
	all = append(all, "file://"+page)
	cmd := exec.CommandContext(ctx, b.path, all...)
	cmd.WaitDelay = 10 * time.Second // helper processes may hold the pipes
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(all, " "), err, errb.String())
	}
	return out.Bytes(), errb.String()
}

// screenshot renders a page at a window size and returns the decoded PNG
// (kept next to the page) and the browser's log.
func (b *browser) screenshot(t *testing.T, page string, w, h int) (image.Image, string) {
	t.Helper()
	shot := filepath.Join(filepath.Dir(page), strings.ReplaceAll(filepath.Base(page), ".", "-")+".png")
	_, log := b.run(t, page, "--window-size="+strconv.Itoa(w)+","+strconv.Itoa(h), "--screenshot="+shot)
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot of %s: %v\n%s", page, err, log)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	t.Logf("screenshot: %s", shot)
	return img, log
}

// checkPage saves an echarts page, screenshots it at a window size and
// checks that its scripts ran without errors, drew into a canvas and
// left at least minInk of the screenshot not white; it returns the
// screenshot for the caller's colour checks.
func (b *browser) checkPage(t *testing.T, name string, data []byte, w, h int, minInk float64) image.Image {
	t.Helper()
	page := b.write(t, name, data)
	img, log := b.screenshot(t, page, w, h)
	checkScripts(t, log)
	checkNotBlank(t, img, minInk)
	checkRendered(t, b.dumpDOM(t, page))
	return img
}

// dumpDOM returns the page's DOM after its scripts ran.
func (b *browser) dumpDOM(t *testing.T, page string) string {
	t.Helper()
	out, _ := b.run(t, page, "--dump-dom")
	return string(out)
}

// checkScripts fails on script errors in the browser's log.
func checkScripts(t *testing.T, log string) {
	t.Helper()
	for _, bad := range []string{"echarts is not defined", "Uncaught"} {
		if strings.Contains(log, bad) {
			t.Errorf("the page logged %q:\n%s", bad, log)
		}
	}
}

// checkRendered checks that echarts drew into the chart's element.
func checkRendered(t *testing.T, dom string) {
	t.Helper()
	if !strings.Contains(dom, "<canvas") {
		t.Errorf("the page has no canvas after its scripts ran: echarts did not draw")
	}
}

// nonWhite is the fraction of an image's pixels that are not (nearly) white.
func nonWhite(img image.Image) float64 {
	r := img.Bounds()
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr>>8 < 240 || cg>>8 < 240 || cb>>8 < 240 {
				n++
			}
		}
	}
	return float64(n) / float64(r.Dx()*r.Dy())
}

func checkNotBlank(t *testing.T, img image.Image, min float64) {
	t.Helper()
	if f := nonWhite(img); f < min {
		t.Errorf("the screenshot is nearly blank: %.2f%% of it is not white (want at least %.2f%%)", 100*f, 100*min)
	}
}

// checkColor checks that at least n pixels have a CSS hex colour, give or
// take a little for antialiasing.
func checkColor(t *testing.T, img image.Image, hex string, n int, what string) {
	t.Helper()
	want, err := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	if err != nil {
		t.Fatalf("colour %q: %v", hex, err)
	}
	wr, wg, wb := int(want>>16&0xff), int(want>>8&0xff), int(want&0xff)
	const tol = 6
	near := func(a, b int) bool { return a-b <= tol && b-a <= tol }
	r := img.Bounds()
	count := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if near(int(cr>>8), wr) && near(int(cg>>8), wg) && near(int(cb>>8), wb) {
				count++
			}
		}
	}
	if count < n {
		t.Errorf("%s's colour %s covers %d pixels of the screenshot, want at least %d", what, hex, count, n)
	}
}
