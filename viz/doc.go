// Package viz draws computation graphs: as static SVG, as Unicode boxes
// for a terminal, and as a before/after view of the graph optimizer. It
// reads package graph and nothing reads it back.
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
// OpKind sorts ops into kinds ("conv", "dense", "norm", …) and KindColor
// gives each kind its fill colour; Kinds lists them in legend order.
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
// The hybridgo command draws symbol files: `hybridgo graph
// model-symbol.json -o model.svg`, or `-o -` (the default) for the
// terminal, `-collapse N`, `-width 120`, and `-passes` for the pass view.
package viz
