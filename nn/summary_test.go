package nn_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// summaryNet is two Dense layers and a constant offset.
type summaryNet struct {
	nn.HybridBlock
	Fc1, Fc2 *nn.Dense
	Offset   *nn.Parameter
	calls    int
}

func newSummaryNet() *summaryNet {
	n := &summaryNet{Fc1: nn.NewDense(5, nn.DenseOptions{Act: "relu"}), Fc2: nn.NewDense(2),
		Offset: nn.NewConstant("offset", eager.Array([]float32{1, -1}, 2))}
	n.Bind(n, "summarynet")
	return n
}

func (n *summaryNet) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	n.calls++
	return F.BroadcastAdd(n.Fc2.Forward(n.Fc1.Forward(x)), nn.Param(F, n.Offset))
}

// The layer column widens to the longest name.
const summaryTable = `------------------------------------------------------------------------------------
            Layer (type)                                Output Shape         Param #
====================================================================================
                   Input                                      (4, 3)               0
          dense0 (Dense)                                      (4, 5)              20
          dense1 (Dense)                                      (4, 2)              12
summarynet0 (summaryNet)                                      (4, 2)               2
====================================================================================
Parameters in forward computation graph, duplicate included
   Total params: 34
   Trainable params: 32
   Non-trainable params: 2
Shared params in forward computation graph: 0
Unique parameters in model: 34
------------------------------------------------------------------------------------
`

func TestSummary(t *testing.T) {
	net := newSummaryNet()
	if net.Name() != "summarynet0" {
		t.Skipf("the net is named %s: another test made a summarynet", net.Name())
	}
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	x := eager.Ones(4, 3)
	got, err := net.Summary(x)
	if err != nil {
		t.Fatal(err)
	}
	if got != summaryTable {
		t.Errorf("summary:\n%s\nwant\n%s", got, summaryTable)
	}

	// On a hybridized block: the same table, and the block stays
	// hybridized, its cached graph still used.
	net.Hybridize()
	y := net.Forward(x)
	got, err = net.Summary(x)
	if err != nil {
		t.Fatal(err)
	}
	if got != summaryTable {
		t.Errorf("hybridized summary:\n%s\nwant\n%s", got, summaryTable)
	}
	if !net.Hybridized() || !net.Fc1.Hybridized() {
		t.Error("Summary left the block not hybridized")
	}
	calls := net.calls
	assertClose(t, "after summary", net.Forward(x), y)
	if net.calls != calls {
		t.Error("after the summary, HybridForward ran again instead of the cached graph")
	}
	// No hooks are left behind.
	var seen []string
	net.RegisterForwardHook(func(name string, _, _ []ops.Tensor) { seen = append(seen, name) })
	net.Forward(x)
	if len(seen) != 1 {
		t.Errorf("hooks after the summary: %v", seen)
	}
}

func TestSummarySharedAndErrors(t *testing.T) {
	c := newSharedC(true)
	c.Initialize()
	got, err := c.Summary(eager.Ones(2, 10))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Total params: 200", "Shared params in forward computation graph: 100", "Unique parameters in model: 100",
		"sharedb0 (sharedB)", "sharedb1 (sharedB)", fmt.Sprintf("%s (sharedC)", c.Name())} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}

	// A plain Sequential: its children get rows, the container none.
	seq := nn.NewSequential(nn.NewDense(3, nn.DenseOptions{InUnits: 2}))
	seq.Initialize()
	got, err = seq.Summary(eager.Ones(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "dense0 (Dense)") || strings.Contains(got, "(Sequential)") || !strings.Contains(got, "Total params: 9") {
		t.Errorf("Sequential summary:\n%s", got)
	}

	// Errors come back as errors, naming the block.
	net := NewNet()
	_, err = net.Summary(eager.Ones(1, 1, 28, 28))
	if err == nil || !strings.Contains(err.Error(), net.Name()) || !strings.Contains(err.Error(), "not been initialised") {
		t.Errorf("summary of an uninitialised net: %v", err)
	}
}

func ExampleHybridBlock_Summary() {
	eager.Seed(1)
	mlp := nn.NewHybridSequential(nn.NewDense(16, nn.DenseOptions{Act: "relu"}), nn.NewDense(10))
	mlp.Initialize()
	table, err := mlp.Summary(eager.Ones(2, 784))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(table)
	// Output:
	// --------------------------------------------------------------------------------
	//         Layer (type)                                Output Shape         Param #
	// ================================================================================
	//                Input                                    (2, 784)               0
	//       dense0 (Dense)                                     (2, 16)           12560
	//       dense1 (Dense)                                     (2, 10)             170
	// ================================================================================
	// Parameters in forward computation graph, duplicate included
	//    Total params: 12730
	//    Trainable params: 12730
	//    Non-trainable params: 0
	// Shared params in forward computation graph: 0
	// Unique parameters in model: 12730
	// --------------------------------------------------------------------------------
}
