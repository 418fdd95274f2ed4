// Command deploy runs an exported model from a compiled Go program, with
// no interpreter: it loads the two files that HybridBlock.Export (or
// MXNet 1.x Gluon's export) writes, feeds the model a few images and
// prints what it predicts.
//
//	go build -o deploy ./examples/deploy
//	./deploy lenet-symbol.json lenet-0001.params
//
// The model must take a batch of 1x28x28 images as its input "data" and
// give ten class scores, as the LeNet of tutorials/export-deploy.md
// does. The images are random (seeded with -seed), or with -fashion-mnist
// the first ones of Fashion-MNIST's test set, whose labels are then
// printed too.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hybridgo/hybridgo/data"
	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the program, apart from the process: it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("deploy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 4, "how many images to classify")
	seed := fs.Uint64("seed", 1, "seed of the random images")
	fashion := fs.Bool("fashion-mnist", false, "classify the first test images of Fashion-MNIST (apt-get install dataset-fashion-mnist) instead of random ones")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: deploy [flags] PREFIX-symbol.json PREFIX-NNNN.params\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 2 || *n < 1 {
		fs.Usage()
		return 2
	}
	if err := classify(fs.Arg(0), fs.Arg(1), *n, *seed, *fashion, stdout); err != nil {
		fmt.Fprintln(stderr, "deploy:", err)
		return 1
	}
	return 0
}

// classify loads the model, makes the input and prints the predictions.
func classify(symbolFile, paramsFile string, n int, seed uint64, fashion bool, w io.Writer) error {
	// The graph and its parameters. "data" is the name Export gives the
	// input of a block with one input.
	net, err := nn.SymbolBlockImports(symbolFile, []string{"data"}, paramsFile)
	if err != nil {
		return err
	}
	// Run the graph as one cached graph, as the exported block did.
	net.Hybridize()
	fmt.Fprintf(w, "loaded %s: %d parameters\n", symbolFile, len(net.Params))

	// The input: a batch of n images, shape (n, 1, 28, 28).
	var images, labels *eager.NDArray
	if fashion {
		all, allLabels, err := data.LoadFashionMNIST("", false)
		if err != nil {
			return err
		}
		n = min(n, all.Shape()[0])
		images = eager.F.SliceAxis(all, 0, 0, n).(*eager.NDArray)
		labels = eager.F.SliceAxis(allLabels, 0, 0, n).(*eager.NDArray)
	} else {
		eager.Seed(seed)
		images = eager.RandomUniform(n, 1, 28, 28)
	}

	// The forward pass, outside any autograd recording: the scores, then
	// softmax's probabilities, one row per image.
	var probs *eager.NDArray
	var ferr error
	eager.Pause(func() {
		// A model whose graph does not fit the input panics in Forward;
		// the panic's message says why.
		defer func() {
			if r := recover(); r != nil {
				ferr = fmt.Errorf("the model cannot run on images %v: %v", images.Shape(), r)
			}
		}()
		out := net.Forward(images).(*eager.NDArray)
		if s := out.Shape(); len(s) != 2 || s[1] != len(data.FashionMNISTClasses) {
			ferr = fmt.Errorf("the model gives %v for images %v; want %d class scores per image", s, images.Shape(), len(data.FashionMNISTClasses))
			return
		}
		probs = eager.F.Softmax(out).(*eager.NDArray)
	})
	if ferr != nil {
		return ferr
	}

	// The class of highest probability for each image.
	p := probs.Float64s()
	classes := len(data.FashionMNISTClasses)
	for i := 0; i < n; i++ {
		best := 0
		for c := 1; c < classes; c++ {
			if p[i*classes+c] > p[i*classes+best] {
				best = c
			}
		}
		fmt.Fprintf(w, "image %d: %-11s (probability %.2f)", i, data.FashionMNISTClasses[best], p[i*classes+best])
		if labels != nil {
			fmt.Fprintf(w, ", is %s", data.FashionMNISTClasses[int(labels.At(i))])
		}
		fmt.Fprintln(w)
	}
	return nil
}
