package display_test

import (
	"fmt"

	"github.com/hybridgo/hybridgo/display"
	"github.com/hybridgo/hybridgo/eager"
)

func ExampleRender() {
	a := eager.Array([]float32{1, 2, 3, 4.5, 5, 6}, 2, 3)
	b := display.Render(a)
	fmt.Println(b["text/html"])
	// Output:
	// <div class="hybridgo-ndarray">
	// <table class="hybridgo-ndarray-table" style="font-family:monospace;text-align:right">
	// <caption style="white-space:nowrap;text-align:left">NDArray 2x3 float32 @cpu(0)</caption>
	// <tr><td>1</td><td>2</td><td>3</td></tr>
	// <tr><td>4.5</td><td>5</td><td>6</td></tr>
	// </table>
	// </div>
}

// Without a publisher, and with standard output not a terminal (a pipe, a
// log file), Progress prints each completed epoch's bar and a summary with
// a sparkline of the training loss; in a terminal the bar is redrawn in
// place as the steps go.
func ExampleProgress() {
	p := display.NewProgress(3, "demo")
	losses := [][]float64{{2.0, 1.8, 1.6}, {1.2, 1.0, 0.9}, {0.7, 0.6, 0.5}}
	for e, epoch := range losses {
		for _, l := range epoch {
			p.Step(l)
		}
		p.Epoch(epoch[2], epoch[2]+0.1, 0.6+0.1*float64(e))
	}
	p.Done()
	// Output:
	// demo epoch 1 [==============================] 3/3 loss 1.8 0s
	// epoch 1: train 1.6 val 1.7 acc 0.6000  ▄
	// demo epoch 2 [==============================] 3/3 loss 1.033 0s
	// epoch 2: train 0.9 val 1 acc 0.7000  █▁
	// demo epoch 3 [==============================] 3/3 loss 0.6 0s
	// epoch 3: train 0.5 val 0.6 acc 0.8000  █▄▁
}
