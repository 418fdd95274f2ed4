// Package data feeds training loops: datasets, transforms and a batching
// loader, after MXNet Gluon's gluon.data, plus a reader for Fashion-MNIST.
// It owns getting samples into NDArray batches; it imports eager and ops,
// and must not import graph, nn or anything above them.
//
// # Datasets
//
// A Dataset is anything with a length and a way to read sample i as a list
// of fields, one NDArray each (an image and its label, say):
//
//	type Dataset interface {
//		Len() int
//		Get(i int) ([]*eager.NDArray, error)
//	}
//
// NewArrayDataset zips arrays along their first axis, so sample i is
// (a0[i], a1[i], …); the arrays must agree on that first dim. A field cut
// from a 1-D array is a scalar, so labels batch up to shape (b,), as in
// Gluon:
//
//	x := eager.RandomUniform(100, 3)                 // 100 samples of 3 features
//	y := eager.Array(make([]float32, 100))           // 100 labels
//	ds, err := data.NewArrayDataset(x, y)            // ds.Get(7): (x[7] of shape (3,), y[7] of shape ())
//
// Transform wraps a dataset with a function applied to each sample as it
// is read (Gluon's dataset.transform); TransformFirst touches only the
// first field (transform_first), the usual way to augment images and
// leave the labels alone.
//
// # DataLoader
//
// A DataLoader cuts a dataset into batches. Each field of a batch is one
// NDArray with the samples stacked on a new first axis. An epoch is an
// iterator, ranged over with Go's range-over-func:
//
//	loader, err := data.NewDataLoader(ds, data.LoaderOptions{BatchSize: 64, Shuffle: true, Seed: 1})
//	for epoch := range 10 {
//		for batch, err := range loader.Epoch() {
//			if err != nil {
//				return err
//			}
//			x, y := batch[0], batch[1] // (64, 3) and (64,)
//			…
//		}
//	}
//
// LoaderOptions follow Gluon's arguments. Shuffle draws a new order every
// epoch, from Seed and the epoch number, so runs repeat. LastBatch decides
// what happens to the short batch at the end: "keep" yields it, "discard"
// drops it, "rollover" carries its samples to the front of the next
// epoch. NumBatches says how many batches the next epoch yields.
//
// NumShards and ShardIndex give each worker of a data-parallel job its
// own part of every epoch (PyTorch's DistributedSampler): all workers draw
// the same order from Seed, pad it with its first samples to a multiple
// of NumShards, and worker k takes every NumShards-th sample from k on.
// The shards are disjoint but for the padding and equally long, so every
// worker makes the same number of steps:
//
//	loader, err := data.NewDataLoader(train, data.LoaderOptions{BatchSize: 64, Shuffle: true, Seed: 1,
//		NumShards: trainer.NumWorkers(), ShardIndex: trainer.Rank()})
//
// Workers > 0 prepares batches on that many goroutines, up to 2*Workers
// batches ahead of the loop; the batches come in the same order as with no
// workers, and the dataset must then be safe to read from several
// goroutines (an ArrayDataset is). Breaking out of the loop stops the
// workers before the loop statement finishes, so nothing leaks.
//
// # Fashion-MNIST
//
// LoadFashionMNIST reads Zalando's Fashion-MNIST from its four IDX files
// (gzipped or not), by default from FashionMNISTDir, where Debian's
// package puts them:
//
//	apt-get install dataset-fashion-mnist
//
// Images come back as float32 (N, 1, 28, 28) in [0, 1] and labels as
// float32 (N,) holding 0..9 (FashionMNISTClasses names them), ready for
// a convolutional net and SoftmaxCrossEntropyLoss. FashionMNIST returns
// the same as an ArrayDataset:
//
//	train, err := data.FashionMNIST("", true) // 60000 samples
//	loader, err := data.NewDataLoader(train, data.LoaderOptions{BatchSize: 256, Shuffle: true, Workers: 2})
//
// The IDX reader treats its files as untrusted: it checks the magic
// numbers, the dims against the size of the file before allocating, that
// the data ends where the dims say, that image and label counts agree and
// that labels are class numbers. A malformed file gives a *FormatError
// naming the file and the byte offset.
package data
