// Package accel holds the numeric compute kernels of hybridgo: matrix
// multiplication, convolution lowering, pooling and a few vector loops, all
// on flat slices. It knows nothing of tensors, shapes, operators or
// autograd; package ops describes its tensors to these kernels as plain
// slices plus sizes and strides.
//
// # Conventions
//
// Every matrix is row-major: element (i, j) of a matrix with row stride ld
// is x[i*ld+j], and ld may exceed the number of columns so that a kernel can
// work on a sub-matrix in place. Images are Channels x H x W, also
// row-major. Kernels whose name or documentation says they "add" accumulate
// into their output (as gradients need); the others overwrite it.
// The floating-point kernels are generic over Float (float32 and float64 and
// types defined from them).
//
// # Parallelism
//
// ParallelFor is the only way the package uses more than one core. It runs
// on a persistent pool of Workers()-1 helper goroutines, started on first
// use, plus the calling goroutine, which always takes part in the work.
// Small ranges (n <= grain) run inline with no synchronisation at all, so
// callers can use it unconditionally and tune only the grain. Calls may come
// from many goroutines at once and may nest: a kernel running inside a
// ParallelFor body can itself call ParallelFor (for instance a per-image
// convolution calling Gemm) without deadlocking. A panic in a body is
// re-raised on the goroutine that called ParallelFor. Each worker owns a
// contiguous share of a loop's chunks and runs it first (then helps with
// the others' from their ends), so the same core takes the same part of
// every loop of as many chunks: kernels split consecutive layers alike
// to read what their own core wrote.
//
// A parallel loop allocates nothing: job descriptors are recycled, and
// helpers receive a pointer to one. What a call may allocate is its body: a
// func literal that captures variables is a heap object (always, inside a
// generic function). The kernels therefore pass their loop bodies as a Loop,
// a small struct with a Range method, through ParallelLoop (a long-lived
// value) or ParallelRange (copied into a recycled value). Scratch slices
// come from size-classed pools (GetScratch, PutScratch).
//
// # Gemm and the micro-kernel seam
//
// Gemm follows the Goto/BLIS design: op(B) is packed into kc x nr
// micro-panels, op(A) into mr x kc micro-panels, blocked so that a panel of
// A stays in L1 while a block of B (kc x 512) streams from L2, and a
// register-blocked micro-kernel multiplies one A panel by one B panel into
// an mr x nr tile of C. Packing absorbs the transpose flags and strides, so
// the micro-kernel only ever sees contiguous, zero-padded panels. Packing
// buffers and the call's own state are recycled, so a call allocates
// nothing. Large products are split into independent tasks and spread with
// ParallelLoop: blocks of C's columns, each packing its own block of B so
// that every worker reads B from its own L2, or, when C has few columns,
// runs of A panels times groups of B panels. Small products stay on the
// calling goroutine.
//
// The micro-kernel is the only architecture-sensitive code, and it is
// isolated behind the microKernel values sgemmKernel and dgemmKernel in
// kernel.go: a tile shape plus a function. The portable kernel is pure Go
// (a 2x3 tile, the largest that keeps its accumulators in the 15 SSE
// registers Go uses on amd64). On amd64, kernel_amd64.go installs assembly
// kernels at start-up from the CPU features reported by golang.org/x/sys/cpu:
// AVX-512 (12x32 float32, 12x16 float64 tiles) when AVX512F is present, else
// AVX2 with FMA (6x16 and 6x8), else the portable kernel stays. The purego
// build tag keeps the portable kernel everywhere, and HYBRIDGO_GEMM=avx2 in
// the environment skips the AVX-512 kernels.
//
// A kernel either adds its product into C or, for the first depth block
// of a product with beta 0, stores it, so C is never cleared beforehand.
// The float32 AVX-512 kernels also come in a form that reads A as it
// lies, broadcasting from its rows (microKernel.rows): a product of few
// columns (a convolution of a 7x7 or 14x14 output at batch 1) then skips
// packing A, which would cost about what the multiplication does
// (ReadsARows says where). Products of whole 7x7 planes, 49 to 196
// columns, take a 7x49 kernel of that form whose every lane is used
// (planes.go, TakesPlanes).
//
// # Convolution and pooling
//
// Convolution is lowered to Gemm: Im2col turns one image into a
// (Channels*KernelH*KernelW) x (OutH*OutW) matrix, so the filters, viewed
// as a Filters x (Channels*KernelH*KernelW) matrix, multiply it into the
// Filters x OutH x OutW output. Im2colAt writes it at a row stride of its
// own, beside other images' in one wider matrix: ops multiplies the
// images of a batch with small planes side by side that way. Col2im is its adjoint and gives the input
// gradient from the column gradient. Col2imSet computes the same into a
// fresh image by gathering: each vector of 8 image elements sums masked
// loads of the column elements that map to it (at a stride of 2, four
// to a load, moved to every other lane) and is stored once, which
// avoids the overlapping read-modify-write rows of a scatter. With
// AVX-512, ConvWeightGradDirect computes a weight gradient with no column
// matrix at all: for four taps at a time, each vector of output positions
// of the gradient (one row, or two narrow rows side by side) is loaded
// once per filter and multiplied by the image rows the taps read; and
// ConvForwardDirect computes a small convolution's forward the same way,
// each tap's weights broadcast once against the image vectors of a block
// of output segments, with the whole epilogue (scale, bias, residual,
// relu and cap) applied before the store;
// it runs every group of filters (six at a time, four where six do not
// divide them) over a chunk of the image's output
// positions before the next chunk, so that the chunk's part of the image
// is read from cache. At a stride of 2 along the width the forward reads
// the image with each row's even columns before its odd ones, so that a
// tap still reads consecutive columns for consecutive outputs.
// ops takes these for column matrices small enough for the packed path,
// for 1x1 convolutions and for the stems of networks at stride 2
// (ConvDirectApplies and ConvWeightGradDirectApplies say where they
// exist); it
// takes ConvWeightGradDirect only for output planes large enough that its
// per-tap partial sums cost less than the column matrix and a GEMM (see
// ops' directWeightGradPays).
// Depthwise3x3 convolves each plane with its own 3x3 filter (MobileNet's
// depthwise layers) without a column matrix. With AVX-512, at padding 1
// and a stride of 1 or 2 (all of MobileNet's), runs of planes are read as
// they lie, in strips of sixteen outputs walked down the plane, masked
// loads standing for the padding and permutes splitting the even and odd
// columns at stride 2: each input row is loaded once per strip and feeds
// every output row it touches (two or three accumulators in flight, a
// row's taps summed apart), which took 0.45–0.65 of the time of nine
// loads per output vector on MobileNet v2's layers.
// Elsewhere the plane is copied once into a zero-bordered buffer, split
// into even and odd columns for a stride of 2, so that each output row is
// nine contiguous runs scaled, summed in registers and bounded (relu,
// relu6) before the store (AVX2 for float32); a plane narrower than 16
// outputs at unit stride is one run. Pooling kernels work on Planes independent planes and follow
// MXNet's window clipping and averaging rules; 2x2 windows at stride 2
// and ResNet's 3x3 windows at stride 2 have loops of their own (AVX2 for
// float32), and at ResNet's even sizes (padding 1, twice the output's
// rows and columns) one AVX-512 kernel per plane for the pooling and for
// its gradient: rows split into even and odd columns in registers,
// sixteen windows at a time, the gradient added in the windows' order
// into whole rows of the plane.
//
// ConvWinograd computes a 3x3 convolution at unit stride by Winograd's
// F(4x4, 3x3): filters transformed once by WinogradFilters (one product
// with G ⊗ G, then PackA per position), each block of 32 output tiles
// gathered from a zero-bordered frame, transformed, multiplied at its 36
// positions by the micro-kernel, transformed back and cropped with the
// epilogue applied, an image at a time so that its frames stay in cache
// (images of fewer tiles than a block, several to a block, a group at a
// time). WinogradFilters orders the filters as PackA lays out their
// matrix, so that one product with G ⊗ G writes every position's packed
// matrix.
// The gathers, scatters and transforms take eight tiles at a time (AVX2
// for float32, WinogradFast); it rounds more than the direct product
// (about 5e-6 of the largest output in float32).
// ConvWeightGradWinograd computes the weight gradient of such a
// convolution by F(3x3, 4x4), the same matrices exchanged: each 4x4 tile
// of the output gradient (A e Aᵀ, sixteen tiles at a time with AVX-512,
// each tile's rows loaded where they lie in the plane and turned into
// lanes in registers) meets the transformed 6x6 patch under it, and the sum over all the
// tiles is, at each of the 36 positions, one product of maps x tiles by
// tiles x channels. Each worker takes a run of images in groups of a few
// MB, so that the transforms are still in its caches for the products,
// and keeps sums of its own; one product with G ⊗ G turns the summed
// positions into the 3x3 gradients.
//
// # Small products
//
// For small convolutions and dense layers the copies around the
// arithmetic cost more than the arithmetic. Im2colPacked writes a column
// matrix straight into the packed panel layout of the micro-kernel (and
// Im2colPackedT its transpose, for the weight gradient; Im2colPanels a
// range of its panels at a time, so that a large matrix is multiplied in
// pieces that stay in cache), GemmPackedB and
// GemmPacked take operands packed that way (PackA packs filters once for
// all images, and GemmPackedA takes them with an unpacked right operand;
// GemmTurnedA packs a convolution's filters turned for its data gradient
// block by block, as the product goes), and an Epilogue finishes each
// tile of C while it is still in cache: a scale and a bias per row (an
// inference BatchNorm folded into a convolution), a bias per column, an
// added matrix (a residual sum), relu and a cap (relu6). A product with at
// most a few rows and a transposed B (a dense layer at batch 1), or with a
// C of one column (a matrix times a vector), is computed as dot products,
// with no packing at all (with AVX-512, four rows of the matrix against
// the vector at a time: four streams from memory, for a classifier's
// weights), and a product of few
// rows gets a micro-kernel of fewer rows where the AVX-512 tile would be
// half empty (6x32 for float32). On amd64 the dot product, Axpy, the
// float32 epilogue, Relu and ReluGrad, the copies of im2col runs, the 8x8
// transposes of panel packing and the float32 2x2 max pooling (forward
// and gradient) are AVX2 loops (dot_amd64.s), installed like the
// micro-kernels; the purego build tag keeps the Go loops. So are Tanh and
// Sigmoid, the gates of recurrent layers, which in float32 evaluate a
// rational function of x eight lanes at a time.
//
// BatchNorm's statistics and gradients in training run per channel
// through ShiftedSums and ShiftScale (the forward) and
// GradStatistics and GradCombine (the gradient): sums in float64, AVX-512
// loops for float32; outside training BatchNormFold folds it into the
// layer before it, sixteen channels at a time. The gradient of 3x3 max
// pooling at stride 2 takes sixteen windows at a time with AVX-512.
// MakeLarge makes the large
// buffers (a graph's float32 arrays, the kernels' scratch, Winograd's
// filters): from 2 MiB, on a huge-page boundary and marked for
// transparent huge pages on Linux, which spares the TLB misses of a
// convolution reading a row of each channel, pages apart.
package accel
