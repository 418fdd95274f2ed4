// Package display is the rich-output layer of hybridgo's Jupyter kernel:
// it turns values into MIME bundles and lets cell code publish them.
//
// # Bundles
//
// Render maps a value to a Bundle, a map from MIME type to content, the
// shape of Jupyter's display_data and execute_result "data" field:
//
//   - *eager.NDArray: text/plain (its String) and text/html, a table of its
//     values under a caption such as "NDArray 2x3 float32 @cpu(0)"; a 1-D
//     array is one row, a 3-D or larger array one table per leading index,
//     and long axes are cut to their first and last items around a "…".
//   - *graph.Symbol, and any block whose LastGraph() returns a graph (a
//     hybridized nn block after its first call): text/plain, image/svg+xml
//     (viz.DrawSVG) and text/html, the interactive echarts drawing of
//     viz.DrawHTML made embeddable (see below).
//   - *profiler.Comparison and *profiler.Profile: text/plain (their
//     String), image/svg+xml (a timeline of one call, viz.TimelineSVG)
//     and text/html: for a comparison, the table of the two modes side by
//     side (time per call, op calls and fused ones, time in ops,
//     interpreter/dispatch, memory allocated, planned and peak), the
//     fused groups and the top ops of each mode; for a profile, its
//     summary and top ops; then the timeline as an interactive echarts
//     chart over its SVG (see Profiling below).
//   - image.Image: image/png and text/plain "<image WxH>".
//   - a value with a MIMEBundle() map[string]any method: that map.
//   - nil, or a nil pointer of any type: text/plain "<nil>".
//   - anything else: text/plain, formatted with %v; so is a value whose
//     renderer panics.
//
// Text formats hold strings; image/png holds its bytes in base64 (a
// string, as Jupyter's JSON wants it); application/json holds a
// json.RawMessage. Render is a pure function of its argument and of
// EchartsHost.
//
// # Interactive charts inside a notebook
//
// viz.DrawHTML writes a whole page. Render keeps only the chart: a div and
// one script that loads echarts.min.js itself and then draws. The script
// works in the classic Notebook and in JupyterLab alike:
//
//   - Classic Notebook has require.js, whose global define makes the UMD
//     echarts bundle register itself as an AMD module instead of setting
//     window.echarts. The loader saves define, sets it to undefined while
//     the bundle loads, and puts it back in the script's load handler.
//   - Output scripts are inserted dynamically, so a plain <script src> would
//     load asynchronously, after the drawing code had run; the loader waits
//     for the load event instead, and charts displayed while the library is
//     still loading queue behind the first. One source loads at a time; one
//     that fails (offline) fails only the charts that asked for it, and the
//     next chart's source is tried.
//   - The chart element is found by a data attribute, not an id, and
//     marked once drawn, so the same graph shown twice draws twice, and
//     re-running a cell declares no global that could collide.
//
// An iframe srcdoc would also isolate the page from require.js, but needs
// a fixed height, and is removed by more sanitizers; untrusted notebooks
// strip scripts either way and fall back to the image/svg+xml entry.
// Set EchartsHost to a directory holding echarts.min.js for offline use;
// in a notebook it is a URL the browser loads, such as the Notebook
// server's /files/ view of the notebook's folder, written relative to the
// notebook's page ("../../files/assets/" for notebooks/run/x.ipynb): a
// path from "/" is taken as a file on disk, which a page served over
// http may not load.
//
// # Displaying from a cell
//
// The kernel installs a Publisher with SetPublisher, in its session's
// eager.State (each REPL session has its own); HTML, Markdown, SVG,
// PNG, JSON and Show then send display_data messages, and a Handle sends
// one display and later replaces it in place (update_display_data with the
// same display id). Without a publisher (the terminal REPL, go test) each
// display prints its text/plain to standard output.
//
// # Profiling
//
//	display.Profile(net, func() { net.Forward(x) })
//
// runs the call eagerly and hybridized (profiler.Modes) and displays the
// comparison; display.Show(profiler.Run(f)) displays one profile. The
// timeline draws the last profiled call of each mode on its busy time:
// every op and every stretch of interpreter/dispatch time as long as it
// took, one after the other, blocks as bars over their ops, so that it
// adds up to the table's time per call (the profiler's own bookkeeping
// between events is left out). Eager and hybridized share the time axis,
// so the shorter bar is the faster mode. Without a publisher the
// comparison prints as in the REPL's :profile.
//
// # Training progress
//
//	p := display.NewProgress(len(batches), "training")
//	for epoch := 0; epoch < 10; epoch++ {
//		for _, b := range batches {
//			p.Step(loss)
//		}
//		p.Epoch(trainLoss, valLoss, acc)
//	}
//	p.Done()
//
// In a notebook the bar and a loss chart update in place; in a terminal
// the bar is one line redrawn with a carriage return, and each epoch
// prints a summary with a sparkline of the training loss.
//
// # Imports
//
// display imports eager, graph, nn, profiler and viz, and passes viz
// plain data (spans, series); nothing below the REPL and the kernel
// imports display.
package display
