package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/hybridgo/hybridgo/internal/train"
	"github.com/hybridgo/hybridgo/nn/optim"
)

// runTrain trains the tutorial's LeNet on Fashion-MNIST.
func runTrain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hybridgo train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o train.Options
	fs.IntVar(&o.Epochs, "epochs", 3, "passes over the training set")
	fs.IntVar(&o.BatchSize, "batch", 128, "samples per step")
	fs.Float64Var(&o.LR, "lr", 0.002, "Adam's learning rate")
	fs.StringVar(&o.Dir, "data", "", "Fashion-MNIST directory (default /usr/share/datasets/fashion-mnist)")
	fs.BoolVar(&o.Eager, "eager", false, "run op by op instead of hybridizing")
	fs.BoolVar(&o.StaticAlloc, "static-alloc", true, "hybridize with static buffers")
	fs.IntVar(&o.Limit, "limit", 0, "train on the first N samples only (0: all 60000)")
	fs.Uint64Var(&o.Seed, "seed", 1, "random seed")
	fs.StringVar(&o.Save, "save", "lenet-fashion-mnist.params", "where to save the parameters (\"\" to skip)")
	fs.BoolVar(&o.Overlap, "overlap", false, "with -kvstore: start each allreduce during the backward pass, as soon as its gradients are ready")
	fs.StringVar(&o.KVStore, "kvstore", "", "dist_sync (alias horovod): train data-parallel over the processes that mpirun -np N started, -batch split between them; needs a build with -tags mpi")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: hybridgo train [flags]\n\nTrains the LeNet of MXNet's hybridize tutorial on Fashion-MNIST, hybridized,\nand saves its parameters. Data-parallel on N processes:\n  mpirun -np N hybridgo train -kvstore dist_sync\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	mode := "hybridized"
	if o.Eager {
		mode = "eager"
	}
	store, err := optim.NewKVStore(o.KVStore)
	if err != nil {
		fmt.Fprintf(stderr, "hybridgo train: %v\n", err)
		return 1
	}
	if store != nil {
		if store.Rank() != 0 {
			stdout = io.Discard // progress from rank 0 only
		}
		mode += fmt.Sprintf(", %s over %d workers", store.Type(), store.NumWorkers())
	}
	fmt.Fprintf(stdout, "training LeNet on Fashion-MNIST (%s, batch %d, Adam lr %g, %d epochs)\n", mode, o.BatchSize, o.LR, o.Epochs)
	if _, _, err := train.Run(o, stdout); err != nil {
		fmt.Fprintf(stderr, "hybridgo train: %v\n", err)
		return 1
	}
	return 0
}
