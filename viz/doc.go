// Package viz draws computation graphs: as static SVG, as Unicode boxes
// for a terminal, and as a before/after view of the graph optimizer. It
// reads package graph and nothing reads it back: it must not import nn,
// display, repl or kernel.
//
// # Layout
//
// LayoutGraph turns a *graph.Graph into a Layout: one Node (a box) per
// op, input and parameter, and one Edge per data dependency, in pixel
// coordinates. Ops sit on layers by longest path from the inputs (inputs
// on top), so every edge runs downward; within a layer, boxes are
// ordered by a few barycenter sweeps that reduce crossings, and placed
// near the mean of their neighbours. Parameters and constants read by a
// single op are drawn small, beside and left of it, on its layer. Edges
// spanning several layers bend through lanes kept free between boxes.
// The same graph and options always give the same layout; a graph of
// 500 nodes lays out in milliseconds.
//
//	l, err := viz.LayoutGraph(sym.Graph(), viz.DefaultOptions())
//
// Options choose what is drawn: ShowParams hides parameter boxes;
// Collapse (block prefixes such as "net0_stage1_") and CollapseDepth
// (every block deeper than N prefix levels, counting the "_"-separated
// segments that end in a digit, so "net0_stage1_conv0_fwd" has three)
// draw a block's ops as one "block" node carrying the block's external
// edges; ParamCounts, FLOPs and Plan add parameter counts, a FLOP
// estimate and memory-plan buffer ids to each box's detail line. Names
// lose the prefix every node shares ("hybridsequential0_"), and a
// parameter beside its op loses the op's block prefix ("weight").
//
// Boxes are coloured by kind: each op says its own kind in the registry
// (ops.Op.Kind: "conv", "dense", "norm", …), OpKind looks it up by name,
// KindColor gives each kind its fill colour and Kinds lists them in legend
// order. This package keeps no table of ops: a new op is drawn in its
// kind's colour as soon as it is registered.
//
// # Drawings
//
// SVG draws a layout as a self-contained SVG document (no fonts, scripts
// or external files), and DrawSVG does layout and drawing in one call.
// Text draws it in a terminal's columns, one row of boxes per layer:
//
//	     ┌─────────────┐
//	     │    data     │
//	     │ 16x1x28x28  │
//	     └─────────────┘
//	            │
//	            ▼
//	┌───────────────────────┐
//	│ conv0_fwd Convolution │
//	│      16x6x24x24       │
//	└───────────────────────┘
//
// and falls back to an indented listing of each op and its inputs when a
// layer does not fit. PassView runs graph.Optimize and graph.PlanMemory
// and shows the graph before and after, side by side, with the reports.
//
// # Interactive pages and charts
//
// HTML writes a layout as one HTML page drawn by echarts (through
// go-echarts): the boxes where the layout put them, coloured by kind,
// with arrows along the layout's edges; the mouse wheel zooms and
// dragging pans; the legend lists the kinds present, and clicking one
// hides or shows its boxes and their edges; hovering a box shows its op,
// shape, dtype, annotations and every attribute. DrawHTML lays out and
// writes in one call:
//
//	page, err := viz.DrawHTML(sym.Graph(), viz.DefaultOptions(), viz.HTMLOptions{Title: "LeNet"})
//	err = viz.WriteFile("lenet.html", page)
//
// The page loads echarts.min.js from HTMLOptions.AssetsHost: go-echarts'
// CDN by default, which needs a network; give a local directory (or URL)
// holding echarts.min.js for pages that must work offline — the echarts
// package on npm ships it as dist/echarts.min.js. The same input gives
// the same bytes: the chart's element id is a hash of the page unless
// HTMLOptions.ChartID names one.
//
// Training curves are Series (X and Y, NaN for a missing value):
// LineChartHTML writes them as an interactive echarts line chart,
// LineChartSVG as a plain SVG with axes, round-number ticks and a legend,
// and Sparkline as one line of block characters for a terminal:
//
//	viz.Sparkline([]float64{2.3, 1.1, 0.7, 0.55, 0.5, 0.47}, 0) // "█▃▂▁▁▁"
//
// A Timeline is a flame chart: named lanes, top to bottom, of Spans (a
// call from Start to End in microseconds, coloured by kind, or by its own
// Color) on one time axis; a call nested in another sits on the lane
// below it. TimelineHTML writes it as an interactive echarts page (a
// custom series per kind: the legend hides a kind, the wheel and the
// slider zoom the time axis, hovering a bar shows its tip), TimelineSVG
// as a plain SVG with the same bars, a legend and a time axis. Package
// display draws the profiler's calls with them, eager above hybridized;
// viz takes the spans as plain data and knows nothing of the profiler.
//
// WriteFile writes a file atomically (a temporary file renamed over the
// old one), so a browser or notebook reloading it never reads half a page.
//
// The hybridgo command draws symbol files: `hybridgo graph
// model-symbol.json -o model.svg`, or `-o -` (the default) for the
// terminal, `-collapse N`, `-width 120`, and `-passes` for the pass view.
package viz
