package vision

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// Options are the keyword arguments of the model constructors and of
// GetModel, shared by every architecture; the zero value is Gluon's
// defaults. An architecture reads the fields it has and ignores the rest.
type Options struct {
	Classes   int     // the number of classes of the output layer; 0 means 1000
	Thumbnail bool    // the small-image (CIFAR) stem: a 3x3 convolution, no pooling (ResNet)
	BNSize    int     // bottleneck channels per growth-rate channel (DenseNet's bn_size); 0 means 4
	Dropout   float64 // dropout rate after each dense layer (DenseNet); 0 for none
}

// classes returns the number of classes, with Gluon's default.
func (o Options) classes() int {
	if o.Classes == 0 {
		return 1000
	}
	return o.Classes
}

// oneOption returns the options of a constructor: none (the defaults)
// or one value.
func oneOption(name string, opts []Options) Options {
	o := nn.OneOption("vision."+name, opts)
	if o.Classes < 0 {
		panic(fmt.Errorf("vision.%s: Classes=%d must not be negative", name, o.Classes))
	}
	return o
}

// Model is what every model of the zoo is: a hybrid block with the block
// methods a user of a pretrained network needs.
type Model interface {
	nn.HybridForwarder
	Forward(x ops.Tensor) ops.Tensor
	Name() string
	String() string
	Initialize(opts ...nn.InitializeOptions) error
	Hybridize(opts ...nn.HybridizeOptions)
	CollectParams(pattern ...string) *nn.ParameterDict
	SaveParameters(file string, deduplicate ...bool) error
	LoadParameters(file string, opts ...nn.LoadParametersOptions) error
	InferShape(inputs ...ops.Tensor) error
	Export(path string, epoch int) error
}

// models maps Gluon's model names to their constructors.
var models = map[string]func(Options) Model{}

// register adds a model under Gluon's name; each architecture's file
// registers its models in an init function.
func register(name string, newModel func(Options) Model) {
	if _, dup := models[name]; dup {
		panic("vision: model " + name + " registered twice")
	}
	models[name] = newModel
}

// Models lists the names GetModel knows, sorted.
func Models() []string {
	names := make([]string, 0, len(models))
	for n := range models {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// GetModel makes the model of the given name with random (uninitialised)
// parameters, Gluon's get_model: GetModel("resnet50_v1",
// vision.Options{Classes: 10}). Names are Gluon's, lower case.
func GetModel(name string, opts ...Options) (Model, error) {
	newModel, ok := models[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("vision.GetModel: model %q is not in the zoo; the models are: %s", name, strings.Join(Models(), ", "))
	}
	return newModel(oneOption("GetModel", opts)), nil
}
