package nn

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// HybridForwarder is what a hybrid block implements: its forward, written
// once with F, which runs op by op before Hybridize and is traced into a
// graph after.
type HybridForwarder interface {
	HybridForward(F ops.F, x ops.Tensor) ops.Tensor
}

// HybridForwarderN is the form of HybridForward for several inputs and outputs.
type HybridForwarderN interface {
	HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor
}

// EagerForwarder is what a plain (non-hybrid) block implements: a forward
// that runs eagerly and may use any Go code.
type EagerForwarder interface {
	EagerForward(xs []ops.Tensor) []ops.Tensor
}

// Warnings receives the warnings blocks give (a Sequential that could be
// a HybridSequential, a parameter re-initialised, …). Set it to
// io.Discard to silence them.
var Warnings io.Writer = os.Stderr

func warnf(format string, args ...any) { fmt.Fprintf(Warnings, "warning: "+format+"\n", args...) }

// core is what every block has: a name, children, parameters and hooks.
// Block and HybridBlock embed it.
type core struct {
	typeName string // "dense", used for naming
	prefix   string // "net0_dense0_"
	bound    bool
	outer    reflect.Value // the struct the block is embedded in (a pointer)
	hybrid   *HybridBlock  // set when this is a hybrid block
	plain    *Block        // set when this is a plain block

	children   []child
	own        []*Parameter
	registered []child // children added with RegisterChild

	preHooks []*hookEntry
	hooks    []*hookEntry

	keepNames bool // parameters keep their names (a SymbolBlock's, named by its graph)

	// local is the block's name within its parent when set by SetPrefix
	// ("stage1_", or "" to share the parent's prefix and counters).
	local    string
	hasLocal bool
	parent   *core // the block that last collected this one as a child
	// childrenOutside names the children in the block's parent's scope
	// (NameChildrenOutside).
	childrenOutside bool
}

type child struct {
	attr  string // the structural path: "conv1", "blocks.2", "2" (an inline field's element)
	field string // the path with every field name, "layers.2", as hybridgo named children before inline fields
	c     *core
}

// blockCore lets the engine reach the core of a compiled block type.
func (c *core) blockCore() *core { return c }

type coreHolder interface{ blockCore() *core }

// bind records the outer struct, names the block at the top level, and
// finds its children and parameters.
func (c *core) bind(outer reflect.Value, name []string) {
	c.outer = outer
	c.typeName = "block"
	if len(name) > 0 && name[0] != "" {
		c.typeName = name[0]
	} else if t := outer.Type(); t.Kind() == reflect.Pointer && t.Elem().Name() != "" {
		c.typeName = strings.ToLower(t.Elem().Name())
	}
	if !c.bound {
		c.prefix = topName(c.typeName)
	}
	c.bound = true
	c.scan()
}

// unwrap returns the pointer to the struct behind a value handed over as
// an interface: compiled types arrive as themselves, values of types
// defined in interpreted Go (yaegi) inside a wrapper struct whose IValue
// holds them.
func unwrap(v reflect.Value) reflect.Value {
	for v.IsValid() && v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct {
		if iv := v.FieldByName("IValue"); iv.IsValid() {
			return unwrap(reflect.ValueOf(iv.Interface()))
		}
	}
	return v
}

func reflectValue(x any) reflect.Value { return reflect.ValueOf(x) }

// coreOf finds the core of a block value, compiled or interpreted, or nil.
func coreOf(v reflect.Value) *core {
	v = unwrap(v)
	if !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil()) {
		return nil
	}
	if v.CanInterface() {
		if h, ok := v.Interface().(coreHolder); ok {
			return h.blockCore()
		}
	}
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	e := v.Elem()
	for _, name := range []string{"HybridBlock", "Block"} {
		if f := e.FieldByName(name); f.IsValid() && f.CanAddr() {
			switch b := f.Addr().Interface().(type) {
			case *HybridBlock:
				return b.blockCore()
			case *Block:
				return b.blockCore()
			}
		}
	}
	return nil
}

var paramType = reflect.TypeFor[*Parameter]()

// scan re-reads the block's fields (and its children's) for children and
// parameters, names them, and reports whether anything changed since the
// last scan.
func (c *core) scan() bool {
	changed := c.collect(map[*core]bool{})
	if changed {
		// Only on a change: a child scanning itself while its parent runs
		// must not rename what the parent (the root) has named.
		c.renameFromCounters()
	}
	return changed
}

// renameFromCounters names the block again, from the first ancestor (or
// itself) whose counters its names depend on: a block with an empty
// prefix counts its children in its parent's counters.
func (c *core) renameFromCounters() {
	top := c
	for (top.transparent() || top.childrenOutside) && top.parent != nil {
		top = top.parent
	}
	top.rename(top.prefix)
}

// collect re-reads the fields of the block and of its descendants.
func (c *core) collect(seen map[*core]bool) bool {
	if seen[c] {
		return false
	}
	seen[c] = true
	if c.sameFields() {
		changed := false
		for _, ch := range c.children {
			if ch.c.collect(seen) {
				changed = true
			}
		}
		return changed
	}
	w := fieldWalk{c: c}
	w.fields()
	children, own := w.children, w.own
	children = append(children, c.registered...)
	changed := len(children) != len(c.children) || len(own) != len(c.own)
	for i := 0; !changed && i < len(children); i++ {
		changed = children[i].c != c.children[i].c
	}
	for i := 0; !changed && i < len(own); i++ {
		changed = own[i] != c.own[i]
	}
	c.children, c.own = children, own
	for _, ch := range children {
		ch.c.parent = c
	}
	for _, ch := range children {
		if ch.c.collect(seen) {
			changed = true
		}
	}
	return changed
}

// sameFields reports, without allocating, whether the outer struct's
// fields still hold the children and parameters found last time, in order.
func (c *core) sameFields() bool {
	w := fieldWalk{c: c, compare: true, ok: true}
	w.fields()
	return w.ok && w.pi == len(c.own) && w.ci == len(c.children)-len(c.registered)
}

// fieldWalk walks what the outer struct's exported fields hold, through
// slices and arrays: parameters (non-nil *Parameter) and child blocks, in
// field order. It collects them into children and own, each child with
// its path ("conv1", "blocks.0"; "0" for an element of an inline field);
// or, with compare, it checks them against
// the ones found last time, counting them in ci and pi, without
// allocating, and ok turns false at the first difference.
type fieldWalk struct {
	c        *core
	compare  bool
	children []child
	own      []*Parameter
	ci, pi   int
	ok       bool
}

func (w *fieldWalk) fields() {
	if !w.c.outer.IsValid() {
		return
	}
	e := w.c.outer.Elem()
	t := e.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous && (f.Name == "HybridBlock" || f.Name == "Block") {
			continue
		}
		path, field := "", ""
		if !w.compare {
			field = fieldAttr(f.Name)
			if !inlineField(f) {
				path = field
			}
		}
		w.visit(path, field, e.Field(i))
	}
}

// inlineField reports whether a field is a slice or array tagged
// nn:"inline", whose elements are named by their index alone.
func inlineField(f reflect.StructField) bool {
	k := f.Type.Kind()
	return f.Tag.Get("nn") == "inline" && (k == reflect.Slice || k == reflect.Array)
}

// join appends an element index to a path ("layers" -> "layers.0"; "" -> "0").
func join(path string, i int) string {
	if path == "" {
		return strconv.Itoa(i)
	}
	return path + "." + strconv.Itoa(i)
}

func (w *fieldWalk) visit(path, field string, v reflect.Value) {
	if w.compare && !w.ok || !v.IsValid() {
		return
	}
	c := w.c
	if v.Type() == paramType {
		switch {
		case v.IsNil():
		case w.compare:
			w.ok = w.pi < len(c.own) && v.Pointer() == reflect.ValueOf(c.own[w.pi]).Pointer()
			w.pi++
		default:
			w.own = append(w.own, v.Interface().(*Parameter))
		}
		return
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			elem, elemField := "", ""
			if !w.compare {
				elem, elemField = join(path, i), join(field, i)
			}
			w.visit(elem, elemField, v.Index(i))
		}
	case reflect.Pointer, reflect.Interface, reflect.Struct:
		cc := coreOf(v)
		switch {
		case cc == nil || cc == c:
		case w.compare:
			fieldChildren := c.children[:len(c.children)-len(c.registered)]
			w.ok = w.ci < len(fieldChildren) && fieldChildren[w.ci].c == cc
			w.ci++
		default:
			w.children = append(w.children, child{path, field, cc})
		}
	}
}

// fieldAttr turns a field name into Gluon's attribute form, lowering its
// leading capital or initialism: "Conv1" -> "conv1", "BN1" -> "bn1",
// "HTTPServer" -> "httpServer" (and yaegi's "Xconv1" for an unexported
// field back to "conv1").
func fieldAttr(name string) string {
	if len(name) > 1 && name[0] == 'X' && unicode.IsLower(rune(name[1])) {
		name = name[1:]
	}
	r := []rune(name)
	n := 0
	for n < len(r) && unicode.IsUpper(r[n]) {
		n++
	}
	if n > 1 && n < len(r) && unicode.IsLower(r[n]) {
		n-- // the last capital starts the next word
	}
	for i := 0; i < max(n, 1); i++ {
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

// rename gives the block a prefix and its children and parameters the
// names that follow from it: children "prefix + type + count_", in field
// order; parameters "prefix + own name". A parameter shared by several
// blocks keeps the name of the first one that holds it (own parameters
// before children's, children in field order).
func (c *core) rename(prefix string) { c.renameWith(prefix, map[*Parameter]bool{}) }

func (c *core) renameWith(prefix string, claimed map[*Parameter]bool) {
	c.nameIn(prefix, map[string]int{}, claimed)
}

// nameIn names the block and its descendants under prefix, counting the
// children's types in counts: a block with an empty SetPrefix passes its
// parent's counts on to its children, as Gluon's prefix="" does.
func (c *core) nameIn(prefix string, counts map[string]int, claimed map[*Parameter]bool) {
	c.nameOwn(prefix, claimed)
	c.nameChildren(prefix, counts, claimed)
}

// nameOwn gives the block its prefix and its own parameters their names.
func (c *core) nameOwn(prefix string, claimed map[*Parameter]bool) {
	c.prefix = prefix
	for _, p := range c.own {
		if !c.keepNames && !claimed[p] {
			p.name = prefix + p.local
		}
		claimed[p] = true
	}
}

// nameChildren names the block's children under prefix, counting their
// types in counts.
func (c *core) nameChildren(prefix string, counts map[string]int, claimed map[*Parameter]bool) {
	for _, ch := range c.children {
		var own string
		switch {
		case ch.c.transparent():
			ch.c.nameIn(prefix, counts, claimed)
			continue
		case ch.c.hasLocal:
			own = prefix + ch.c.local
		default:
			n := counts[ch.c.typeName]
			counts[ch.c.typeName] = n + 1
			own = fmt.Sprintf("%s%s%d_", prefix, ch.c.typeName, n)
		}
		if ch.c.childrenOutside {
			ch.c.nameOwn(own, claimed)
			ch.c.nameChildren(prefix, counts, claimed)
			continue
		}
		ch.c.renameWith(own, claimed)
	}
}

// NameChildrenOutside names the block's children in the scope the block
// itself is named in, not under its prefix: Gluon's naming of a block
// that makes its children in __init__ without entering its own
// name_scope (GluonCV's HardSwish makes its HardSigmoid so: in a parent
// "p_", the two are "p_hardswish0_" and "p_hardsigmoid0_"). The block's
// own parameters and nodes keep its prefix.
func (c *core) NameChildrenOutside() {
	c.childrenOutside = true
	if c.parent != nil {
		c.parent.renameFromCounters()
	}
}

// transparent reports whether the block has an empty SetPrefix.
func (c *core) transparent() bool { return c.hasLocal && c.local == "" }

// SetPrefix gives the block a fixed name prefix, Gluon's prefix argument:
// within a parent the block is named parent prefix + prefix ("stage1_"
// makes "resnetv10_stage1_conv0_weight") instead of type and counter;
// an empty prefix makes the block share its parent's prefix, and its
// children count on from its parent's ("resnetv10_conv0" for a child of
// features = HybridSequential(prefix="")). A block without a parent takes
// prefix as its whole prefix.
func (c *core) SetPrefix(prefix string) {
	c.local, c.hasLocal = prefix, true
	if c.parent == nil {
		c.rename(prefix)
		return
	}
	c.parent.renameFromCounters()
}

// Name is the block's prefix without the trailing underscore ("dense0").
//
// A block with an empty prefix (SetPrefix("") at the top level, as
// GluonCV's MobileNetV3 is made) is named by its type, so that messages
// still say which block they are about.
func (c *core) Name() string {
	if c.prefix == "" {
		return c.typeName
	}
	return strings.TrimSuffix(c.prefix, "_")
}

// Prefix is the prefix of the block's parameter and node names ("dense0_").
func (c *core) Prefix() string { return c.prefix }

// RegisterChild adds a child that is not held in a field (for example one
// kept in a map), under the given attribute name.
func (c *core) RegisterChild(block any, name string) error {
	cc := coreOf(reflect.ValueOf(block))
	if cc == nil {
		return fmt.Errorf("%s: RegisterChild(%s): %T is not a block", c.Name(), name, block)
	}
	if c.hybrid != nil && cc.hybrid == nil {
		return fmt.Errorf("%s: a HybridBlock can only have hybrid children, but %s is a plain Block; make it a HybridBlock (with HybridForward)", c.Name(), name)
	}
	c.registered = append(c.registered, child{name, name, cc})
	c.scan()
	return nil
}

// checkHybridChildren refuses plain children of a hybrid block.
func (c *core) checkHybridChildren() {
	if c.hybrid == nil {
		return
	}
	for _, ch := range c.children {
		if ch.c.hybrid == nil {
			panic(fmt.Errorf("%s: a HybridBlock can only have hybrid children, but field %s is a plain Block; make it a HybridBlock (with HybridForward)", c.Name(), ch.attr))
		}
	}
}

// CollectParams returns the parameters of the block and its children,
// optionally only those whose full names match a regular expression.
func (c *core) CollectParams(pattern ...string) *ParameterDict {
	d := newParameterDict()
	c.walk(func(b *core) {
		for _, p := range b.own {
			d.add(p)
		}
	})
	if len(pattern) > 0 && pattern[0] != "" {
		sel, err := d.Select(pattern[0])
		if err != nil {
			panic(err)
		}
		return sel
	}
	return d
}

// walk visits the block and then its descendants, depth first.
func (c *core) walk(fn func(*core)) {
	fn(c)
	for _, ch := range c.children {
		ch.c.walk(fn)
	}
}

// InitializeOptions are the options of Initialize.
type InitializeOptions struct {
	Init        Initializer // nil: each parameter's own, else Uniform(0.07)
	ForceReinit bool        // initialise again parameters that have values
	Verbose     bool        // print what is initialised
}

// Initialize gives every parameter of the block and its children values
// (Gluon's initialize). Parameters whose shapes have unknown dims are
// initialised on the first forward. Initialising again warns, unless forced.
func (c *core) Initialize(opts ...InitializeOptions) error {
	o := OneOption("Initialize", opts)
	for _, p := range c.CollectParams().List() {
		if p.Initialized() && !o.ForceReinit {
			if !p.constant {
				warnf("parameter %s is already initialised; ignoring (use ForceReinit to initialise it again)", p.name)
			}
			continue
		}
		if err := p.Initialize(o.Init, o.ForceReinit); err != nil {
			return err
		}
		if o.Verbose {
			state := "initialised"
			if !p.Initialized() {
				state = "waits for its shape"
			}
			fmt.Fprintf(Warnings, "%s %v %s\n", p.name, p.shape, state)
		}
	}
	return nil
}

// Cast converts every parameter to dtype.
func (c *core) Cast(dtype ops.DType) {
	c.walk(func(b *core) {
		for _, p := range b.own {
			p.Cast(dtype)
		}
		if b.hybrid != nil {
			b.hybrid.clearCache()
		}
	})
}

// Apply calls fn on every descendant (children first) and then the block.
func (c *core) Apply(fn func(name string)) {
	for _, ch := range c.children {
		ch.c.Apply(fn)
	}
	fn(c.Name())
}

// ZeroGrad zeroes the gradients of every parameter.
func (c *core) ZeroGrad() { c.CollectParams().ZeroGrad() }

// String prints the block tree with its children, as Gluon's repr does.
func (c *core) String() string {
	var b strings.Builder
	c.describe(&b, "")
	return b.String()
}

func (c *core) describe(b *strings.Builder, indent string) {
	fmt.Fprintf(b, "%s(", c.Name())
	if len(c.children) == 0 {
		b.WriteString(")")
		return
	}
	b.WriteString("\n")
	for _, ch := range c.children {
		fmt.Fprintf(b, "%s  (%s): ", indent, ch.attr)
		ch.c.describe(b, indent+"  ")
		b.WriteString("\n")
	}
	b.WriteString(indent + ")")
}

// Hooks

type hookEntry struct {
	pre  func(name string, inputs []ops.Tensor)
	post func(name string, inputs, outputs []ops.Tensor)
	list *[]*hookEntry
}

// HookHandle removes a registered hook.
type HookHandle struct{ e *hookEntry }

// Detach removes the hook; later calls do nothing.
func (h HookHandle) Detach() {
	if h.e == nil || h.e.list == nil {
		return
	}
	l := *h.e.list
	for i, e := range l {
		if e == h.e {
			*h.e.list = append(l[:i:i], l[i+1:]...)
			break
		}
	}
	h.e.list = nil
}

// RegisterForwardPreHook calls fn with the inputs before every forward of
// the block (hybridized or not).
func (c *core) RegisterForwardPreHook(fn func(name string, inputs []ops.Tensor)) HookHandle {
	e := &hookEntry{pre: fn, list: &c.preHooks}
	c.preHooks = append(c.preHooks, e)
	return HookHandle{e}
}

// RegisterForwardHook calls fn with the inputs and outputs after every
// forward of the block (hybridized or not).
func (c *core) RegisterForwardHook(fn func(name string, inputs, outputs []ops.Tensor)) HookHandle {
	e := &hookEntry{post: fn, list: &c.hooks}
	c.hooks = append(c.hooks, e)
	return HookHandle{e}
}

func (c *core) runPreHooks(in []ops.Tensor) {
	for _, h := range append([]*hookEntry(nil), c.preHooks...) {
		h.pre(c.Name(), in)
	}
}

func (c *core) runHooks(in, out []ops.Tensor) {
	for _, h := range append([]*hookEntry(nil), c.hooks...) {
		h.post(c.Name(), in, out)
	}
}

// Block is a plain block: its EagerForward runs eagerly and may use any Go
// code. Embed it in a struct, implement EagerForward, and call Bind once.
type Block struct {
	core
	self EagerForwarder
}

// Bind tells the block which struct it is embedded in (call it once, from
// the constructor: b.Bind(b)); children and parameters are then found in
// that struct's fields. name overrides the name taken from the type.
func (b *Block) Bind(self EagerForwarder, name ...string) {
	b.self = self
	b.plain = b
	b.bind(unwrap(reflect.ValueOf(self)), name)
}

// Forward runs the block on its inputs.
func (b *Block) Forward(xs ...ops.Tensor) []ops.Tensor {
	if b.self == nil {
		panic(fmt.Errorf("this block was not bound: call Bind(self) in its constructor"))
	}
	b.scan()
	prof := eager.ActiveProfiler()
	if prof != nil {
		prof.Begin(b.Name(), eager.ModeEager)
	}
	b.runPreHooks(xs)
	out := b.self.EagerForward(xs)
	b.runHooks(xs, out)
	if prof != nil {
		prof.End(eager.SpanMemory{})
	}
	return out
}

// Hybridize hybridizes every hybrid descendant; a plain block itself runs
// eagerly. A Sequential whose children are all hybrid warns that a
// HybridSequential would hybridize as a whole.
func (b *Block) Hybridize(opts ...HybridizeOptions) {
	b.scan()
	for _, ch := range b.children {
		ch.c.hybridize(opts)
	}
}

func (c *core) hybridize(opts []HybridizeOptions) {
	switch {
	case c.hybrid != nil:
		c.hybrid.Hybridize(opts...)
	case c.plain != nil:
		c.plain.Hybridize(opts...)
	}
}
