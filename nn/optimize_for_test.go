package nn_test

import (
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
)

func TestOptimizeFor(t *testing.T) {
	c := newChain()
	c.Initialize()
	x := eager.RandomNormal(3, 4)
	want := c.Forward(x)
	var opsRun []string
	c.RegisterOpHook(func(name, op string, v *eager.NDArray) { opsRun = append(opsRun, op) }, false)
	if err := c.OptimizeFor(x, "fuse"); err != nil {
		t.Fatal(err)
	}
	if !c.Hybridized() {
		t.Error("OptimizeFor did not hybridize the block")
	}
	if len(opsRun) != 0 {
		t.Errorf("OptimizeFor ran the graph: %v", opsRun)
	}
	assertClose(t, "optimised", c.Forward(x), want)
	if got := strings.Join(opsRun, " "); got != "FullyConnected _fused_elemwise" {
		t.Errorf("the optimised block ran %q", got)
	}
	// Another shape is optimised too.
	opsRun = nil
	x2 := eager.RandomNormal(5, 4)
	c.Forward(x2)
	if !strings.Contains(strings.Join(opsRun, " "), "_fused_elemwise") {
		t.Errorf("a new shape ran %v", opsRun)
	}
	// Hybridize goes back to the graph as traced, which the cached op
	// optimises keeping what the gradient needs: the chain is not one loop.
	c.Hybridize()
	opsRun = nil
	assertClose(t, "hybridized again", c.Forward(x), want)
	if len(opsRun) <= 2 {
		t.Errorf("Hybridize kept the fused graph: %v", opsRun)
	}

	err := c.OptimizeFor(x, "tensorrt")
	if err == nil || !strings.Contains(err.Error(), `"tensorrt"`) || !strings.Contains(err.Error(), "known: fuse") {
		t.Errorf("unknown backend: %v", err)
	}
}
