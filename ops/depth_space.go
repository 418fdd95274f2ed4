package ops

// depth_to_space and space_to_depth move values between the channels
// (axis 1) and blocks of block_size x block_size positions of data
// (N, C, H, W), as ONNX's DepthToSpace (DCR order) and SpaceToDepth do.
// Each is the other's inverse and therefore the other's gradient.

// BlockSizeAttrs are the attributes of depth_to_space and space_to_depth.
type BlockSizeAttrs struct {
	BlockSize int `attr:"block_size" doc:"the side of the blocks of positions moved to or from the channels"`
}

var opDepthToSpace, opSpaceToDepth *Op

func init() {
	check := func(a *BlockSizeAttrs) error {
		if a.BlockSize < 1 {
			return Errorf("block_size=%d must be positive", a.BlockSize)
		}
		return nil
	}
	opDepthToSpace = registerGather(gatherDef[BlockSizeAttrs]{
		Name: "depth_to_space", Kind: "shape",
		Doc: "Moves channels into blocks of positions: data (N, C, H, W) becomes (N, C/b², H*b, W*b), b = block_size, " +
			"output[n, c, h*b+i, w*b+j] = data[n, (i*b+j)*C/b² + c, h, w]. The inverse of space_to_depth.",
		Inputs: []string{"data"},
		Check:  check,
		Shape: func(a *BlockSizeAttrs, in []Shape) (Shape, error) {
			d, b := in[0], a.BlockSize
			if len(d) != 4 {
				return nil, Errorf("data %v must be 4-D (N, C, H, W)", d)
			}
			if d[1]%(b*b) != 0 {
				return nil, Errorf("the %d channels of data %v do not divide by block_size²=%d", d[1], d, b*b)
			}
			return Shape{d[0], d[1] / (b * b), d[2] * b, d[3] * b}, nil
		},
		Index: func(a *BlockSizeAttrs, in []Value) ([]int, error) {
			d, b := in[0].Shape, a.BlockSize
			c := d[1] / (b * b)
			out := Shape{d[0], c, d[2] * b, d[3] * b}
			return coordMap(out, d, func(oc, ic []int) bool {
				i, j := oc[2]%b, oc[3]%b
				ic[0], ic[1], ic[2], ic[3] = oc[0], (i*b+j)*c+oc[1], oc[2]/b, oc[3]/b
				return true
			}), nil
		},
		Grad: func(f F, a *BlockSizeAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opSpaceToDepth, a, g[0])}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"block_size": "2"}, Inputs: []Shape{{2, 8, 2, 3}}},
			{Attrs: map[string]string{"block_size": "3"}, Inputs: []Shape{{1, 9, 1, 2}}, DTypes: []DType{Int32}, NoGradCheck: true},
		},
	})

	opSpaceToDepth = registerGather(gatherDef[BlockSizeAttrs]{
		Name: "space_to_depth", Kind: "shape",
		Doc: "Moves blocks of positions into channels: data (N, C, H, W) becomes (N, C*b², H/b, W/b), b = block_size, " +
			"output[n, (i*b+j)*C + c, h, w] = data[n, c, h*b+i, w*b+j]. The inverse of depth_to_space.",
		Inputs: []string{"data"},
		Check:  check,
		Shape: func(a *BlockSizeAttrs, in []Shape) (Shape, error) {
			d, b := in[0], a.BlockSize
			if len(d) != 4 {
				return nil, Errorf("data %v must be 4-D (N, C, H, W)", d)
			}
			if d[2]%b != 0 || d[3]%b != 0 {
				return nil, Errorf("the height and width of data %v do not divide by block_size=%d", d, b)
			}
			return Shape{d[0], d[1] * b * b, d[2] / b, d[3] / b}, nil
		},
		Index: func(a *BlockSizeAttrs, in []Value) ([]int, error) {
			d, b := in[0].Shape, a.BlockSize
			out := Shape{d[0], d[1] * b * b, d[2] / b, d[3] / b}
			return coordMap(out, d, func(oc, ic []int) bool {
				blk, c := oc[1]/d[1], oc[1]%d[1]
				ic[0], ic[1], ic[2], ic[3] = oc[0], c, oc[2]*b+blk/b, oc[3]*b+blk%b
				return true
			}), nil
		},
		Grad: func(f F, a *BlockSizeAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opDepthToSpace, a, g[0])}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"block_size": "2"}, Inputs: []Shape{{2, 3, 4, 2}}},
			{Attrs: map[string]string{"block_size": "3"}, Inputs: []Shape{{1, 1, 3, 6}}, DTypes: []DType{Int32}, NoGradCheck: true},
		},
	})
}

// DepthToSpace moves channels of x (N, C, H, W) into blocks of
// blockSize x blockSize positions: (N, C/blockSize², H*blockSize, W*blockSize).
func (f F) DepthToSpace(x Tensor, blockSize int) Tensor {
	return f.callA(opDepthToSpace, &BlockSizeAttrs{BlockSize: blockSize}, x)
}

// SpaceToDepth moves blocks of blockSize x blockSize positions of x
// (N, C, H, W) into channels: (N, C*blockSize², H/blockSize, W/blockSize).
func (f F) SpaceToDepth(x Tensor, blockSize int) Tensor {
	return f.callA(opSpaceToDepth, &BlockSizeAttrs{BlockSize: blockSize}, x)
}
