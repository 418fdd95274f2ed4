package nn

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
)

// keyedParam is a parameter with its structural name: the path of fields
// from the block to it, as Gluon's save_parameters writes ("conv1.weight",
// "features.0.bias"; a Sequential's children are named by their index).
type keyedParam struct {
	key string
	p   *Parameter
}

// structural lists the parameters of the block and its descendants under
// their structural names, the block's own first, then each child's in
// field order. A shared parameter is listed under each of its names.
// With fieldNames, the names keep the field of each inline slice
// ("layers.0.weight" for "0.weight"), as hybridgo wrote them before
// naming a Sequential's children as Gluon does.
func (c *core) structural(fieldNames ...bool) []keyedParam {
	old := len(fieldNames) > 0 && fieldNames[0]
	var out []keyedParam
	var visit func(b *core, prefix string)
	visit = func(b *core, prefix string) {
		sb := symbolBlockOf(b)
		for _, p := range b.own {
			local := p.local
			if sb != nil {
				local = sb.keys[p]
			}
			out = append(out, keyedParam{prefix + local, p})
		}
		for _, ch := range b.children {
			attr := ch.attr
			if old {
				attr = ch.field
			}
			visit(ch.c, prefix+attr+".")
		}
	}
	visit(c, "")
	return out
}

// refresh scans the block and its descendants again, so that children and
// parameters assigned to fields since the last forward count.
func (c *core) refresh() {
	c.walk(func(b *core) {
		if b.scan() && b.hybrid != nil {
			b.hybrid.clearCache()
		}
	})
}

// symbolBlockOf returns the SymbolBlock a core belongs to, or nil.
func symbolBlockOf(c *core) *SymbolBlock {
	if !c.outer.IsValid() || c.outer.Kind() != reflect.Pointer || !c.outer.CanInterface() {
		return nil
	}
	sb, _ := c.outer.Interface().(*SymbolBlock)
	return sb
}

// SaveParameters writes the parameters of the block and its descendants
// to file, under their structural names, as Gluon's save_parameters does:
// the fields that lead to each ("conv1.weight"), a Sequential's children
// (and those of any slice field tagged nn:"inline") by their index alone
// ("features.4.0.body.0.weight"). With
// deduplicate, a parameter shared by several blocks is written once, under
// the first of its names; LoadParameters then loads it through any of
// them. The file is replaced atomically: a failed save leaves the old one.
func (c *core) SaveParameters(file string, deduplicate ...bool) error {
	c.refresh()
	dedup := len(deduplicate) > 0 && deduplicate[0]
	seen := map[*Parameter]bool{}
	var list []mxnet.NamedArray
	for _, kp := range c.structural() {
		if dedup && seen[kp.p] {
			continue
		}
		seen[kp.p] = true
		if !kp.p.Initialized() {
			return fmt.Errorf("save parameters %s: parameter %s: %w", file, kp.key, kp.p.notReady())
		}
		list = append(list, mxnet.NamedArray{Name: kp.key, Array: kp.p.Data()})
	}
	if err := mxnet.SaveParams(file, list); err != nil {
		if !strings.Contains(err.Error(), file) {
			err = fmt.Errorf("save parameters %s: %w", file, err)
		}
		return fmt.Errorf("%s: %w", c.Name(), err)
	}
	return nil
}

// LoadParametersOptions are the options of LoadParameters.
type LoadParametersOptions struct {
	AllowMissing bool // parameters absent from the file keep their values
	IgnoreExtra  bool // entries of the file the block has no parameter for are skipped
	// CastDType converts a saved array whose dtype differs from the
	// parameter's; without it that is an error.
	CastDType bool
	// DTypeSource says which dtype wins when casting: "current" (the
	// default: the parameter's) or "saved" (the file's).
	DTypeSource string
}

// loadPlan is how the names in a params file map to the block's parameters.
type loadPlan struct {
	kind  string                // "structural", "field" (structural with inline fields named), "full", "renamed" or "stripped"
	param map[string]*Parameter // file name -> parameter
	label map[*Parameter]string // the name errors use for a parameter
}

// LoadParameters loads values saved by SaveParameters into the block's
// parameters, matched by structural name. Unknown dims are taken from the
// file (completing a deferred initialisation). A parameter the file lacks,
// an entry the block has no parameter for, a shape that disagrees or a
// dtype that differs (without CastDType) is an error naming the parameter
// and the file; nothing is loaded then.
//
// Files saved by earlier versions of hybridgo, which named a
// Sequential's children by field ("layers.0.weight" for "0.weight"),
// load too.
//
// Files whose names are full parameter names, such as Export's
// ("arg:net0_dense0_weight"; the "arg:"/"aux:" prefixes are dropped) or
// those of ParameterDict-style saves, load too: they are matched by full
// name, or, when they were saved from a block of another name (net0 where
// this one is net1), by the names with the block prefix swapped, or, when
// the prefix was stripped on saving ("dense0_weight"), by the names with
// this block's prefix added.
func (c *core) LoadParameters(file string, opts ...LoadParametersOptions) error {
	o := OneOption("LoadParameters", opts)
	switch o.DTypeSource {
	case "", "current", "saved":
	default:
		return fmt.Errorf("load parameters %s: DTypeSource is %q; want \"current\" or \"saved\"", file, o.DTypeSource)
	}
	list, err := mxnet.LoadParams(file)
	if err != nil {
		return err
	}
	c.refresh()
	names := make([]string, len(list))
	seen := map[string]bool{}
	argAux := false
	for i, e := range list {
		if e.Name == "" {
			return fmt.Errorf("load parameters %s: entry %d has no name: an unnamed list cannot be matched to parameters", file, i)
		}
		names[i] = stripArgAux(e.Name)
		argAux = argAux || names[i] != e.Name
		if seen[names[i]] {
			return fmt.Errorf("load parameters %s: parameter %q appears twice", file, names[i])
		}
		seen[names[i]] = true
	}
	plan := c.planLoad(names, argAux)

	// Check everything first, so that a failed load changes nothing.
	type assignment struct {
		p *Parameter
		a *eager.NDArray
	}
	var todo []assignment
	done := map[*Parameter]bool{}
	for i, e := range list {
		p := plan.param[names[i]]
		if p == nil {
			if o.IgnoreExtra {
				continue
			}
			return fmt.Errorf("load parameters %s: parameter %q in the file is not a parameter of block %s%s; set IgnoreExtra to skip it",
				file, e.Name, c.Name(), c.namesHint(plan))
		}
		label := plan.label[p]
		if label != e.Name {
			label += fmt.Sprintf(" (saved as %q)", e.Name)
		}
		a := e.Array
		if !p.shape.Fits(a.Shape()) {
			return fmt.Errorf("load parameters %s: parameter %s: shape incompatible: the block expects %s, the file has %s",
				file, label, p.shape.Tuple(), a.Shape().Tuple())
		}
		if a.DType() != p.dtype {
			if !o.CastDType {
				return fmt.Errorf("load parameters %s: parameter %s: dtype incompatible: the block expects %v, the file has %v; set CastDType to convert",
					file, label, p.dtype, a.DType())
			}
			if o.DTypeSource != "saved" {
				eager.Pause(func() { a = a.AsType(p.dtype) })
			}
		}
		todo = append(todo, assignment{p, a})
		done[p] = true
	}
	if !o.AllowMissing {
		for _, kp := range c.structural() {
			if !done[kp.p] {
				return fmt.Errorf("load parameters %s: parameter %s is missing from the file (it holds %s); set AllowMissing to keep its current value",
					file, plan.label[kp.p], preview(names))
			}
		}
	}
	changed := false
	for _, t := range todo {
		p := t.p
		if p.data != nil && p.data.Shape().Equal(t.a.Shape()) && p.data.DType() == t.a.DType() {
			eager.CopyFrom(p.data, t.a)
			continue
		}
		if err := p.SetData(t.a); err != nil {
			return fmt.Errorf("load parameters %s: %w", file, err)
		}
		changed = true
	}
	if changed {
		// A parameter changed shape or dtype: graphs traced with the old
		// ones are stale.
		c.walk(func(b *core) {
			if b.hybrid != nil {
				b.hybrid.clearCache()
			}
		})
	}
	return nil
}

// planLoad chooses how a file's names map to the block's parameters: by
// structural name (SaveParameters), by structural name with inline
// fields named (older SaveParameters), by full name (Export, with arg:/aux:
// dropped), or by full name with the file's top block prefix replaced by
// this block's, or by full name without the block's prefix (Gluon's
// collect_params().save(file, strip_prefix=net.prefix), which Gluon's
// load_parameters reads as well). The mapping that matches the most
// names wins; structural names are not tried for files with arg:/aux:
// prefixes.
func (c *core) planLoad(names []string, argAux bool) loadPlan {
	byKey := func(kind string, keyed []keyedParam) loadPlan {
		pl := loadPlan{kind: kind, param: map[string]*Parameter{}, label: map[*Parameter]string{}}
		for _, kp := range keyed {
			pl.param[kp.key] = kp.p
			if _, ok := pl.label[kp.p]; !ok {
				pl.label[kp.p] = kp.key
			}
		}
		return pl
	}
	structural := byKey("structural", c.structural())
	field := byKey("field", c.structural(true))
	full := loadPlan{kind: "full", param: map[string]*Parameter{}, label: map[*Parameter]string{}}
	for _, p := range c.CollectParams().List() {
		full.param[p.name] = p
		full.label[p] = p.name
	}
	renamed := loadPlan{kind: "renamed", param: map[string]*Parameter{}, label: full.label}
	if from := topPrefix(names); from != "" && from != c.prefix {
		for _, n := range names {
			if p := full.param[c.prefix+n[len(from):]]; p != nil {
				renamed.param[n] = p
			}
		}
	}
	score := func(pl loadPlan) int {
		k := 0
		for _, n := range names {
			if pl.param[n] != nil {
				k++
			}
		}
		return k
	}
	stripped := loadPlan{kind: "stripped", param: map[string]*Parameter{}, label: full.label}
	for _, n := range names {
		if p := full.param[c.prefix+n]; p != nil {
			stripped.param[n] = p
		}
	}
	candidates := []loadPlan{structural, field, full, renamed, stripped}
	if argAux {
		candidates = candidates[2:]
	}
	best := candidates[0]
	for _, pl := range candidates[1:] {
		if score(pl) > score(best) {
			best = pl
		}
	}
	return best
}

// topPrefix returns the first "_"-separated part the names all start with
// ("net0_"), or "".
func topPrefix(names []string) string {
	if len(names) == 0 {
		return ""
	}
	i := strings.IndexByte(names[0], '_')
	if i < 0 {
		return ""
	}
	prefix := names[0][:i+1]
	for _, n := range names[1:] {
		if !strings.HasPrefix(n, prefix) {
			return ""
		}
	}
	return prefix
}

// namesHint lists the names the block expects, in the form the plan used.
func (c *core) namesHint(plan loadPlan) string {
	var names []string
	if plan.kind == "structural" || plan.kind == "field" {
		for _, kp := range c.structural() {
			names = append(names, kp.key)
		}
		return " (its parameters: " + preview(names) + ")"
	}
	names = c.CollectParams().Names()
	return " (the file's names look like full parameter names, as Export writes; the block's are: " + preview(names) +
		"; a params file written by Export loads with SymbolBlockImports, or here when the block has the same structure and names)"
}

// preview lists up to ten names.
func preview(names []string) string {
	if len(names) == 0 {
		return "nothing"
	}
	if len(names) > 10 {
		return strings.Join(names[:10], ", ") + fmt.Sprintf(", … (%d in all)", len(names))
	}
	return strings.Join(names, ", ")
}
