package viz

import (
	"fmt"
	"strings"

	"github.com/hybridgo/hybridgo/graph"
)

// PassView shows what graph.Optimize (with every pass on:
// graph.InferencePassOptions, so BatchNorm is folded as in the program of
// calls outside training) does to a graph: an SVG with the graph before and after side by side, the after
// panel titled "after: N nodes, fused X, removed Y, buffers Z of W" (op
// nodes after, original ops fused into fused nodes, original ops gone
// otherwise, buffers of the memory plan and the op outputs they serve)
// and annotated with the plan's buffer ids, plus a text report: every
// pass's report and the memory plan. When the plan cannot be made (shapes
// not fully known), the report says why and the title shows "buffers ?".
func PassView(before *graph.Graph, o Options) (svg []byte, text string, err error) {
	after, reports, err := graph.Optimize(before, graph.InferencePassOptions())
	if err != nil {
		return nil, "", fmt.Errorf("viz: optimize: %w", err)
	}
	plan, planRep, planErr := graph.PlanMemory(after)

	lb, err := LayoutGraph(before, o)
	if err != nil {
		return nil, "", err
	}
	oa := o
	if planErr == nil {
		oa.Plan = plan
	}
	la, err := LayoutGraph(after, oa)
	if err != nil {
		return nil, "", err
	}

	opsBefore := map[string]bool{}
	for _, n := range before.Nodes {
		if !n.IsVar() {
			opsBefore[n.Name] = true
		}
	}
	na, fused := 0, 0
	kept := map[string]bool{}
	for _, n := range after.Nodes {
		if n.IsVar() {
			continue
		}
		na++
		kept[n.Name] = true
		if n.Op.Kind() == "fused" {
			for _, m := range strings.Split(n.Op.FormatAttrs(n.Attrs)["nodes"], ",") {
				if opsBefore[m] && !kept[m] {
					kept[m] = true
					fused++
				}
			}
		}
	}
	removed := 0
	for name := range opsBefore {
		if !kept[name] {
			removed++
		}
	}
	bufs := "buffers ?"
	if planErr == nil {
		bufs = fmt.Sprintf("buffers %d of %d", len(plan.Buffers), len(plan.EntryBuffer))
	}
	nodes := "nodes"
	if na == 1 {
		nodes = "node"
	}
	title := fmt.Sprintf("after: %d %s, fused %d, removed %d, %s", na, nodes, fused, removed, bufs)
	svg = svgPanels([]panel{{"before", lb}, {title, la}}, true)

	var b strings.Builder
	b.WriteString(title + "\n\n")
	for _, r := range reports {
		b.WriteString(r.String() + "\n")
	}
	if planErr != nil {
		fmt.Fprintf(&b, "PlanMemory: not run: %v\n", planErr)
	} else {
		b.WriteString(planRep.String() + "\n\n")
		b.WriteString(plan.String())
	}
	return svg, b.String(), nil
}
