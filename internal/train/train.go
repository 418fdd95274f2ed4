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
	// KVStore is the Trainer's store: "dist_sync" trains data-parallel
	// over the processes mpirun started (BatchSize is then the batch of
	// all workers together, split evenly between them); "" or "local"
	// trains in this process alone.
	KVStore string
	Overlap bool // with a KVStore: start sending gradients during the backward pass
}

// Epoch is what one pass over the training set gave.
type Epoch struct {
	Loss, TrainAcc, TestAcc float64
	Time                    time.Duration
	// Allreduce is the part of Time spent summing gradients over the
	// workers (0 for one process).
	Allreduce time.Duration
	TrainTime time.Duration // Time without the evaluation
	Steps     int
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
//
// With a distributed KVStore every worker trains on its shard of each
// epoch, and the parameters stay the same on all of them. Rank 0 alone
// writes progress, evaluates on the test set (the others' epochs have
// TestAcc 0) and saves; loss and training accuracy are over all workers.
// Run closes the store when it returns, so it runs once per process.
func Run(o Options, progress io.Writer) ([]Epoch, *nn.HybridSequential, error) {
	if progress == nil {
		progress = io.Discard
	}
	if o.Epochs <= 0 || o.BatchSize <= 0 || o.LR <= 0 {
		return nil, nil, fmt.Errorf("train: epochs, batch size and learning rate must be positive (got %d, %d, %v)", o.Epochs, o.BatchSize, o.LR)
	}
	store, err := optim.NewKVStore(o.KVStore)
	if err != nil {
		return nil, nil, fmt.Errorf("train: %w", err)
	}
	rank, workers := 0, 1
	if store != nil {
		defer store.Close()
		rank, workers = store.Rank(), store.NumWorkers()
		if rank != 0 {
			progress = io.Discard
		}
		if o.BatchSize%workers != 0 {
			return nil, nil, fmt.Errorf("train: the batch of %d samples does not split evenly between %d workers", o.BatchSize, workers)
		}
	}
	local := o.BatchSize / workers
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
	loader, err := data.NewDataLoader(ds, data.LoaderOptions{BatchSize: local, Shuffle: true, LastBatch: "discard", Seed: o.Seed, Workers: 1,
		NumShards: workers, ShardIndex: rank})
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
	trainer, err := optim.NewTrainer(net.CollectParams(), optim.NewAdam(optim.AdamOptions{LR: o.LR}), optim.TrainerOptions{Store: store, Overlap: o.Overlap})
	if err != nil {
		return nil, nil, err
	}

	var epochs []Epoch
	for e := 1; e <= o.Epochs; e++ {
		start, comm := time.Now(), trainer.AllreduceTime()
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
			if err := trainer.Step(local); err != nil {
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
		ep := Epoch{Loss: total / float64(max(batches, 1)), TrainAcc: trainAcc, Steps: batches, TrainTime: time.Since(start)}
		if store != nil {
			// Loss and accuracy over every worker's shard.
			sums := []float64{ep.Loss, ep.TrainAcc}
			if err := store.StartAllreduce(sums).Wait(); err != nil {
				return nil, nil, err
			}
			ep.Loss, ep.TrainAcc = sums[0]/float64(workers), sums[1]/float64(workers)
		}
		if rank == 0 {
			if ep.TestAcc, err = Evaluate(net, testImgs, testLabels, 500); err != nil {
				return nil, nil, err
			}
		}
		ep.Time, ep.Allreduce = time.Since(start), trainer.AllreduceTime()-comm
		epochs = append(epochs, ep)
		dist := ""
		if store != nil {
			dist = fmt.Sprintf(" (%d workers, %.1f steps/s, allreduce %.2fs)", workers, float64(ep.Steps)/ep.TrainTime.Seconds(), ep.Allreduce.Seconds())
		}
		fmt.Fprintf(progress, "\repoch %d/%d: loss %.4f, train accuracy %.4f, test accuracy %.4f, %.1fs%s%s\n",
			e, o.Epochs, ep.Loss, ep.TrainAcc, ep.TestAcc, ep.Time.Seconds(), dist, strings.Repeat(" ", 20))
	}
	if o.Save != "" && rank == 0 {
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
