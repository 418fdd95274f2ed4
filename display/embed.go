package display

import (
	"bytes"
	"encoding/json"
	"errors"
	"html"
	"regexp"
	"strings"
)

// EchartsHost is where embedded charts load echarts.min.js from: a URL of
// a directory ending in "/" ("https://…/", "files/assets/"). Empty means
// the go-echarts CDN that viz pages use.
var EchartsHost = ""

var (
	scriptSrcRe = regexp.MustCompile(`<script src="([^"]*echarts\.min\.js)"></script>`)
	chartDivRe  = regexp.MustCompile(`<div class="item" id="([A-Za-z0-9_]+)" style="([^"]*)"></div>`)
)

// EmbedChart turns an echarts page written by package viz (DrawHTML,
// HTML, LineChartHTML) into an HTML fragment for a notebook output: the
// chart's div and a script that loads echarts with require.js' define
// hidden, then draws (see the package documentation). A fallback (static
// markup, such as the graph's SVG) is shown until the chart draws, and
// stays when echarts cannot be loaded (offline, or scripts not trusted).
func EmbedChart(page []byte, fallback ...string) (string, error) {
	m := chartDivRe.FindSubmatch(page)
	if m == nil {
		return "", errors.New("display: no chart element in the page")
	}
	id, style := string(m[1]), html.UnescapeString(string(m[2]))
	start := []byte("let option_" + id + " = ")
	end := []byte("goecharts_" + id + ".setOption(")
	i := bytes.Index(page, start)
	j := bytes.Index(page, end)
	if i < 0 || j < i {
		return "", errors.New("display: no chart options in the page")
	}
	option := strings.TrimSpace(string(page[i+len(start) : j]))
	option = strings.TrimSuffix(option, ";")
	if option == "" {
		return "", errors.New("display: empty chart options")
	}
	src := "https://go-echarts.github.io/go-echarts-assets/assets/echarts.min.js"
	if s := scriptSrcRe.FindSubmatch(page); s != nil {
		src = html.UnescapeString(string(s[1]))
	}
	srcJS, _ := json.Marshal(src) // escapes <, > and & too
	idJS, _ := json.Marshal(id)

	var b strings.Builder
	hidden := ""
	if len(fallback) > 0 && fallback[0] != "" {
		b.WriteString(`<div class="hybridgo-fallback" style="max-width:100%;overflow:auto">` + fallback[0] + "</div>\n")
		hidden = ";display:none"
	}
	b.WriteString(`<div class="hybridgo-chart" data-hybridgo-chart="` + html.EscapeString(id) +
		`" style="` + html.EscapeString(style) + `;max-width:100%;overflow:auto` + hidden + `"></div>` + "\n")
	b.WriteString("<script type=\"text/javascript\">\n(function () {\n")
	b.WriteString("  var w = window, id = " + string(idJS) + ", src = " + string(srcJS) + ";\n")
	// The element: the first of this chart's elements not drawn yet.
	b.WriteString(`  function draw() {
    var els = document.querySelectorAll('div[data-hybridgo-chart="' + id + '"]'), el = null;
    for (var k = 0; k < els.length; k++) {
      if (!els[k].getAttribute("data-drawn")) { el = els[k]; break; }
    }
    if (!el) return;
    el.setAttribute("data-drawn", "1");
    var fb = el.previousElementSibling;
    if (fb && fb.className === "hybridgo-fallback") { fb.style.display = "none"; }
    el.style.display = "";
    var chart = w.echarts.init(el, "white", { renderer: "canvas" });
    chart.setOption(`)
	b.WriteString(option)
	b.WriteString(`);
  }
  // Without echarts: the picture stays, and says why.
  function fail() {
    var els = document.querySelectorAll('div[data-hybridgo-chart="' + id + '"]');
    for (var k = 0; k < els.length; k++) {
      var el = els[k];
      if (el.getAttribute("data-drawn")) continue;
      el.setAttribute("data-drawn", "failed");
      var fb = el.previousElementSibling;
      if (fb && fb.className === "hybridgo-fallback") {
        el.style.display = "";
        el.style.height = "auto";
        el.textContent = "(static picture: the interactive view needs " + src + ")";
      } else {
        el.textContent = "could not load " + src;
      }
    }
  }
  function later(f) { setTimeout(f, 0); }
  if (w.echarts && w.echarts.init) { later(draw); return; }
  // One load at a time; charts wait in a queue. A failed load fails only
  // the charts that asked for that source: the next source is tried.
  var entry = { src: src, draw: draw, fail: fail };
  if (w.__hybridgoEchartsQueue) { w.__hybridgoEchartsQueue.push(entry); return; }
  w.__hybridgoEchartsQueue = [entry];
  load(src);
  function load(from) {
    // require.js (classic Notebook) would take the UMD bundle as an AMD
    // module: hide its define while echarts loads.
    var savedDefine = w.define;
    w.define = undefined;
    function done() {
      w.define = savedDefine;
      var loaded = !!(w.echarts && w.echarts.init), q = w.__hybridgoEchartsQueue || [], rest = [];
      for (var k = 0; k < q.length; k++) {
        if (loaded) { later(q[k].draw); }
        else if (q[k].src === from) { later(q[k].fail); }
        else { rest.push(q[k]); }
      }
      w.__hybridgoEchartsQueue = rest.length ? rest : null;
      if (rest.length) { load(rest[0].src); }
    }
    var s = document.createElement("script");
    s.src = from;
    s.onload = done;
    s.onerror = done;
    document.head.appendChild(s);
  }
})();
</script>
`)
	return b.String(), nil
}
