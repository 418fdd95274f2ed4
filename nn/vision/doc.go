// Package vision is Gluon's model zoo for vision (gluon.model_zoo.vision):
// the classic image classification networks, built with Gluon's block
// trees and names so that parameters saved from Python load into them.
//
// # Getting a model
//
// GetModel takes Gluon's model name and the options every constructor
// shares, whose zero value is Gluon's defaults:
//
//	net, err := vision.GetModel("resnet50_v1")                         // 1000 classes
//	net, err := vision.GetModel("resnet18_v2", vision.Options{Classes: 10, Thumbnail: true})
//
// Models lists the names. Each architecture also has Gluon's
// constructors (ResNet50V1, GetResNet, NewResNetV1, NewBottleneckV1, …),
// which return the concrete block type, with its children in fields.
// The parameters are not initialised: call Initialize, or load them
// with LoadParameters. There is no pretrained download (Gluon's
// pretrained=True): load the weights from a params file instead.
//
// # The models
//
// ResNet V1 and V2 of 18, 34, 50, 101 and 152 layers (resnet18_v1 …
// resnet152_v2). Thumbnail replaces the 7x7 stem and its pooling by a
// 3x3 convolution, for small (CIFAR, 32x32) images.
//
// MobileNet (mobilenet1.0, 0.75, 0.5, 0.25) and MobileNetV2
// (mobilenetv2_1.0 … 0.25), VGG 11, 13, 16 and 19 with and without batch
// norm (vgg16, vgg16_bn), AlexNet (alexnet) and SqueezeNet 1.0 and 1.1
// (squeezenet1.0, squeezenet1.1). Each also has Gluon's constructor
// functions (vision.MobileNetV2_1_0(), vision.VGG16BN(), …). Models lists
// every name GetModel knows.
//
// DenseNet-BC of 121, 161, 169 and 201 layers (densenet121 …
// densenet201, vision.DenseNet121(), NewDenseNet for other
// configurations), with Gluon's bn_size and dropout as Options.BNSize
// and Options.Dropout. Its final 7x7 average pool needs 224x224 inputs.
// A dense layer is a HybridConcurrent of an Identity and the new
// features, as Gluon's is, so its parameters are named
// "densenet0_stage1_conv0_weight" and saved as "features.4.0.1.2.weight".
//
// Inception V3 (inceptionv3, vision.InceptionV3(), Gluon's Inception3),
// without the auxiliary classifier, as Gluon's: 23,834,568 parameters.
// Its final 8x8 average pool needs 299x299 inputs. Its modules are
// HybridConcurrents of branches with Gluon's prefixes A1_ … A3_, B_,
// C1_ … C4_, D_, E1_ and E2_ ("inception30_A1_conv0_weight"), the
// branches and basic convolutions HybridSequentials of prefix "".
//
// GluonCV's MobileNetV3 large and small (mobilenetv3_large,
// mobilenetv3_small, vision.MobileNetV3Large(), NewMobileNetV3 with a
// width multiplier), with GluonCV's hard swish and hard sigmoid
// (HardSwish, HardSigmoid): 5,481,752 and 2,945,288 parameters. As
// GluonCV's, the network has an empty prefix and its inner blocks name
// their children in their parent's scope, so its parameters are named
// "first-3x3-conv-conv2d_weight", "_resunit3_seq-3-se_fc1_weight" and
// "output_fc_bias", and saved as "features.6.se.conv1.weight". The
// exported nodes of the convolutions, batch norms and shortcuts have
// GluonCV's names ("_resunit2__plus0"); those inside the hard swish,
// the hard sigmoid and the squeeze-and-excitation's product do not
// (GluonCV names a hard swish's hard sigmoid in the enclosing block's
// scope), which changes no parameter name.
//
// # Checked against torchvision
//
// TestTorchvision (run where Python has PyTorch and torchvision, `make
// deps`) gives a torchvision network and its Gluon counterpart the same
// random parameters, batch norms' running statistics included, every
// one mapped by name, and checks that they compute the same outputs to
// float32 rounding: resnet18_v1 and resnet34_v1, vgg11 and vgg11_bn,
// alexnet, squeezenet1.0 and squeezenet1.1, densenet121 and
// mobilenetv2_1.0 (at 224x224 where a network's final pooling is global
// only at that size). The others differ from torchvision's: resnet50_v1
// and deeper stride in the bottleneck's first 1x1 convolution,
// torchvision's in the 3x3; the V2 ResNets and MobileNet (v1) have no
// torchvision network; MobileNetV3 and Inception V3 are not checked. And
// mobilenetv2_1.0 differs in two places the check works around: its first
// bottleneck keeps a 1x1 expansion convolution though its expansion is 1
// (set to an identity), and its output is a 1x1 convolution without bias,
// torchvision's a Linear with bias (set to zero).
//
// # Loading Gluon's parameters
//
// A model's block tree is Gluon's: Features (a HybridSequential) and
// Output, the stages HybridSequentials of residual blocks. So
//
//   - LoadParameters reads a file written by Gluon's
//     net.save_parameters, whose keys are structural names
//     ("features.4.0.body.0.weight", "output.weight"), with Gluon's
//     AllowMissing, IgnoreExtra and CastDType options;
//   - parameters and exported nodes have the names Gluon gives them
//     ("resnetv10_stage1_conv0_weight", "resnetv10_dense0_bias"), and a
//     params file written by Gluon's export loads by those names.
//
// Gluon's blocks created with prefix="" are blocks with an empty
// SetPrefix, the stages HybridSequentials with SetPrefix("stage1_"), ….
//
// # Adding an architecture
//
// A file per architecture holds its blocks and constructors and
// registers its models in an init function, with Gluon's names:
//
//	func init() {
//		register("alexnet", func(o Options) Model { return NewAlexNet(o) })
//	}
//
// An option Gluon's constructors take (a width multiplier, batch norm)
// becomes a field of Options.
//
// Package vision imports nn and ops; nn must not import it.
package vision
