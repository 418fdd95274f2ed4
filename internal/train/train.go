// Package train trains the LeNet of MXNet's hybridize tutorial on
// Fashion-MNIST: the loop behind `hybridgo train` and its accuracy test.
package train

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hybridgo/hybridgo/data"
	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/nn/loss"
	"github.com/hybridgo/hybridgo/nn/metric"
	"github.com/hybridgo/hybridgo/nn/optim"
	"github.com/hybridgo/hybridgo/ops"
)

// Options say what to train and how.
type Options struct {
	Dir         string  // Fashion-MNIST directory; "" for data.FashionMNISTDir
	Epochs      int     // passes over the training set
	BatchSize   int     // samples per step
	LR          float64 // Adam's learning rate
	Eager       bool    // do not hybridize
	StaticAlloc bool    // hybridize with static buffers
	Limit       int     // use only the first Limit training samples (0: all)
	Seed        uint64
	Save        string // write the parameters here after training ("" for none)
}

// Epoch is what one pass over the training set gave.
type Epoch struct {
	Loss, TrainAcc, TestAcc float64
	Time                    time.Duration
}

// NewLeNet builds the tutorial's LeNet as a stack of layers.
func NewLeNet() *nn.HybridSequential {
	relu := nn.ConvOptions{Act: "relu"}
	return nn.NewHybridSequential(
		nn.NewConv2D(6, []int{5}, relu), nn.NewMaxPool2D([]int{2}),
		nn.NewConv2D(16, []int{5}, relu), nn.NewMaxPool2D([]int{2}),
		nn.NewFlatten(),
		nn.NewDense(120, nn.DenseOptions{Act: "relu"}),
		nn.NewDense(84, nn.DenseOptions{Act: "relu"}),
		nn.NewDense(10),
	)
}

// Run trains a LeNet and reports each epoch; progress, when not nil,
// receives a progress bar and a line per epoch.
func Run(o Options, progress io.Writer) ([]Epoch, *nn.HybridSequential, error) {
	if progress == nil {
		progress = io.Discard
	}
	if o.Epochs <= 0 || o.BatchSize <= 0 || o.LR <= 0 {
		return nil, nil, fmt.Errorf("train: epochs, batch size and learning rate must be positive (got %d, %d, %v)", o.Epochs, o.BatchSize, o.LR)
	}
	trainImgs, trainLabels, err := data.LoadFashionMNIST(o.Dir, true)
	if err != nil {
		return nil, nil, err
	}
	if o.Limit > 0 && o.Limit < trainImgs.Shape()[0] {
		trainImgs = eager.F.SliceAxis(trainImgs, 0, 0, o.Limit).(*eager.NDArray)
		trainLabels = eager.F.SliceAxis(trainLabels, 0, 0, o.Limit).(*eager.NDArray)
	}
	testImgs, testLabels, err := data.LoadFashionMNIST(o.Dir, false)
	if err != nil {
		return nil, nil, err
	}
	ds, err := data.NewArrayDataset(trainImgs, trainLabels)
	if err != nil {
		return nil, nil, err
	}
	loader, err := data.NewDataLoader(ds, data.LoaderOptions{BatchSize: o.BatchSize, Shuffle: true, LastBatch: "discard", Seed: o.Seed, Workers: 1})
	if err != nil {
		return nil, nil, err
	}

	eager.Seed(o.Seed)
	net := NewLeNet()
	if err := net.Initialize(nn.InitializeOptions{Init: nn.Xavier()}); err != nil {
		return nil, nil, err
	}
	if !o.Eager {
		net.Hybridize(nn.HybridizeOptions{StaticAlloc: o.StaticAlloc})
	}
	lossFn := loss.NewSoftmaxCrossEntropyLoss()
	trainer, err := optim.NewTrainer(net.CollectParams(), optim.NewAdam(optim.AdamOptions{LR: o.LR}))
	if err != nil {
		return nil, nil, err
	}

	var epochs []Epoch
	for e := 1; e <= o.Epochs; e++ {
		start := time.Now()
		acc := metric.NewAccuracy()
		total, batches := 0.0, 0
		n := loader.NumBatches()
		for batch, err := range loader.Epoch() {
			if err != nil {
				return nil, nil, err
			}
			x, y := batch[0], batch[1]
			var out ops.Tensor
			var l *eager.NDArray
			eager.Record(func() {
				out = net.Forward(x)
				l = lossFn.Loss(out, y).(*eager.NDArray)
			})
			if err := l.Backward(); err != nil {
				return nil, nil, err
			}
			if err := trainer.Step(o.BatchSize); err != nil {
				return nil, nil, err
			}
			total += eager.F.Mean(l).(*eager.NDArray).Scalar()
			batches++
			if err := acc.Update(y, out.(*eager.NDArray)); err != nil {
				return nil, nil, err
			}
			if batches%10 == 0 || batches == n {
				_, a := acc.Get()
				fmt.Fprintf(progress, "\repoch %d/%d %s %d/%d loss %.4f acc %.4f", e, o.Epochs, bar(batches, n, 30), batches, n, total/float64(batches), a)
			}
		}
		_, trainAcc := acc.Get()
		testAcc, err := Evaluate(net, testImgs, testLabels, 500)
		if err != nil {
			return nil, nil, err
		}
		ep := Epoch{Loss: total / float64(max(batches, 1)), TrainAcc: trainAcc, TestAcc: testAcc, Time: time.Since(start)}
		epochs = append(epochs, ep)
		fmt.Fprintf(progress, "\repoch %d/%d: loss %.4f, train accuracy %.4f, test accuracy %.4f, %.1fs%s\n",
			e, o.Epochs, ep.Loss, ep.TrainAcc, ep.TestAcc, ep.Time.Seconds(), strings.Repeat(" ", 20))
	}
	if o.Save != "" {
		if err := net.SaveParameters(o.Save); err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(progress, "saved the parameters to %s\n", o.Save)
	}
	return epochs, net, nil
}

// Evaluate returns the accuracy of net on images and labels, in batches,
// in prediction mode.
func Evaluate(net *nn.HybridSequential, images, labels *eager.NDArray, batch int) (float64, error) {
	acc := metric.NewAccuracy()
	n := images.Shape()[0]
	var err error
	eager.Pause(func() {
		for lo := 0; lo < n && err == nil; lo += batch {
			hi := min(lo+batch, n)
			x := eager.F.SliceAxis(images, 0, lo, hi).(*eager.NDArray)
			y := eager.F.SliceAxis(labels, 0, lo, hi).(*eager.NDArray)
			err = acc.Update(y, net.Forward(x).(*eager.NDArray))
		}
	})
	_, a := acc.Get()
	return a, err
}

func bar(done, total, width int) string {
	filled := width * done / max(total, 1)
	return "[" + strings.Repeat("=", filled) + strings.Repeat(" ", width-filled) + "]"
}
