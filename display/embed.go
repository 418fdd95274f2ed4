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
  function later(f) { setTimeout(f, 0); }
  if (w.echarts && w.echarts.init) { later(draw); return; }
  if (w.__hybridgoEchartsQueue) { w.__hybridgoEchartsQueue.push(draw); return; }
  w.__hybridgoEchartsQueue = [draw];
  // require.js (classic Notebook) would take the UMD bundle as an AMD
  // module: hide its define while echarts loads.
  var savedDefine = w.define;
  w.define = undefined;
  function finish(ok) {
    w.define = savedDefine;
    var q = w.__hybridgoEchartsQueue || [];
    w.__hybridgoEchartsQueue = null;
    for (var k = 0; k < q.length; k++) {
      if (ok) { later(q[k]); }
    }
    if (!ok) {
      var els = document.querySelectorAll("div.hybridgo-chart:not([data-drawn])");
      for (var k = 0; k < els.length; k++) {
        var fb = els[k].previousElementSibling;
        if (fb && fb.className === "hybridgo-fallback") {
          els[k].style.display = "";
          els[k].style.height = "auto";
          els[k].textContent = "(static picture: the interactive view needs " + src + ")";
        } else {
          els[k].textContent = "could not load " + src;
        }
      }
    }
  }
  var s = document.createElement("script");
  s.src = src;
  s.onload = function () { finish(true); };
  s.onerror = function () { finish(false); };
  document.head.appendChild(s);
})();
</script>
`)
	return b.String(), nil
}
