"""The safe-op allow-list: ops that compute on tensors and touch no file, network or Python.

Anything not listed here is "unsafe" and refused unless allowed explicitly
(``--allow-ops OP,...``) or trusted (``--trust``). Checkpoint machinery
(``SaveV2``/``RestoreV2``...) is accepted only inside a SavedModel's own saver
subgraph, which tfport never runs during conversion.
"""

from __future__ import annotations

_SAFE = """
Abs Acos Acosh Add AddN AddV2 All Any ApproximateEqual ArgMax ArgMin Asin Asinh Assert Atan Atan2
Atanh AvgPool AvgPool3D AvgPoolGrad BatchMatMul BatchMatMulV2 BatchMatMulV3 BatchToSpace
BatchToSpaceND BatchNormWithGlobalNormalization BiasAdd BiasAddV1 BiasAddGrad Bincount Bitcast
BitwiseAnd BitwiseOr BitwiseXor BroadcastArgs BroadcastGradientArgs BroadcastTo Bucketize Case
Cast Ceil CheckNumerics CheckNumericsV2 Cholesky ClipByValue Complex ComplexAbs Concat ConcatOffset
ConcatV2 Conj ConjugateTranspose Const ControlTrigger Conv Conv2D Conv2DBackpropFilter
Conv2DBackpropInput Conv3D Conv3DBackpropInputV2 Cos Cosh CropAndResize Cross Cumprod Cumsum
DataFormatDimMap DataFormatVecPermute DepthToSpace DepthwiseConv2dNative
DepthwiseConv2dNativeBackpropInput Dequantize Diag DiagPart Digamma Dilation2D Div DivNoNan
DynamicPartition DynamicStitch Einsum Elu EluGrad Empty EnsureShape Enter Equal Erf Erfc Erfinv Exit
Exp ExpandDims Expm1 ExtractImagePatches FakeQuantWithMinMaxArgs FakeQuantWithMinMaxVars
FakeQuantWithMinMaxVarsPerChannel FFT FFT2D FFT3D Fill Floor FloorDiv FloorMod FusedBatchNorm
FusedBatchNormV2 FusedBatchNormV3 FusedPadConv2D FusedResizeAndPadConv2D Gather GatherNd GatherV2
Greater GreaterEqual HistogramFixedWidth Identity IdentityN IFFT IFFT2D IFFT3D If Igamma Igammac
Imag InTopK InTopKV2 InvertPermutation IsFinite IsInf IsNan IsVariableInitialized L2Loss LRN
LeakyRelu LeakyReluGrad LeftShift Less LessEqual Lgamma LinSpace ListDiff Log Log1p LogSoftmax
LogicalAnd LogicalNot LogicalOr LoopCond LowerBound MatMul MatrixBandPart MatrixDeterminant
MatrixDiag MatrixDiagPart MatrixDiagPartV2 MatrixDiagPartV3 MatrixDiagV2 MatrixDiagV3
MatrixInverse MatrixSetDiag MatrixSetDiagV2 MatrixSetDiagV3 MatrixSolve MatrixTriangularSolve Max
MaxPool MaxPool3D MaxPoolGrad MaxPoolV2 MaxPoolWithArgmax Maximum Mean Merge Min Minimum MirrorPad
Mod Mul MulNoNan Multinomial Ndtri Neg NextIteration NoOp NonMaxSuppression NonMaxSuppressionV2
NonMaxSuppressionV3 NonMaxSuppressionV4 NonMaxSuppressionV5 NotEqual OneHot OnesLike Pack Pad PadV2
ParallelConcat ParallelDynamicStitch PartitionedCall Placeholder PlaceholderWithDefault Polygamma
PopulationCount Pow PreventGradient Prod QuantizeAndDequantizeV2 QuantizeAndDequantizeV3
QuantizeAndDequantizeV4 QuantizeV2 Qr RandomShuffle RandomStandardNormal RandomUniform
RandomUniformInt Range Rank Real RealDiv Reciprocal ReciprocalGrad RefEnter RefExit RefIdentity
RefMerge RefNextIteration RefSelect RefSwitch Relu Relu6 Relu6Grad ReluGrad Reshape
ResizeArea ResizeBicubic ResizeBilinear ResizeBilinearGrad ResizeNearestNeighbor
ResizeNearestNeighborGrad Reverse ReverseSequence ReverseV2 RightShift Rint Round Rsqrt RsqrtGrad
ScatterNd SegmentMax SegmentMean SegmentMin SegmentProd SegmentSum Select SelectV2 Selu SeluGrad
Shape ShapeN Sigmoid SigmoidGrad Sign Sin Sinh Size Slice Snapshot Softmax
SoftmaxCrossEntropyWithLogits Softplus SoftplusGrad Softsign SoftsignGrad SpaceToBatch
SpaceToBatchND SpaceToDepth SparseMatMul SparseSegmentMean SparseSegmentSqrtN SparseSegmentSum
SparseSoftmaxCrossEntropyWithLogits SparseTensorDenseMatMul SparseToDense Split SplitV Sqrt
SqrtGrad Square SquaredDifference Squeeze StatefulPartitionedCall StatelessCase StatelessIf
StatelessMultinomial StatelessRandomGetKeyCounter StatelessRandomNormal StatelessRandomNormalV2
StatelessRandomUniform StatelessRandomUniformInt StatelessRandomUniformV2
StatelessRandomUniformIntV2 StatelessTruncatedNormal StatelessTruncatedNormalV2 StatelessWhile
StopGradient StridedSlice StridedSliceGrad Sub Sum Svd Switch Tan Tanh TanhGrad TensorScatterAdd
TensorScatterUpdate Tile TopK TopKV2 Transpose TruncateDiv TruncateMod TruncatedNormal Unique
UniqueV2 Unpack UnsortedSegmentMax UnsortedSegmentMin UnsortedSegmentProd UnsortedSegmentSum
UpperBound Where While Xdivy Xlog1py Xlogy ZerosLike Zeta
AsString StringJoin StringLength StringSplit StringSplitV2 StringStrip StringToHashBucket
StringToHashBucketFast StringToHashBucketStrong StringToNumber Substr RegexReplace
StaticRegexReplace RegexFullMatch StaticRegexFullMatch StringLower StringUpper UnicodeDecode
DecodeBase64 EncodeBase64 DecodeRaw DecodeJpeg DecodePng DecodeImage DecodeBmp DecodeGif
EncodeJpeg EncodePng ParseExample ParseExampleV2 ParseSingleExample ParseSequenceExample
ParseSequenceExampleV2 ParseTensor SerializeTensor
TensorListFromTensor TensorListStack TensorListReserve TensorListSetItem TensorListGetItem
TensorListLength TensorListPushBack TensorListPopBack TensorListElementShape TensorListConcatV2
TensorListGather TensorListScatterIntoExistingList TensorListSplit
TensorArrayV3 TensorArrayReadV3 TensorArrayWriteV3 TensorArrayGatherV3 TensorArrayScatterV3
TensorArraySizeV3 TensorArrayConcatV3 TensorArraySplitV3 TensorArrayCloseV3
OptionalFromValue OptionalNone OptionalHasValue OptionalGetValue
SparseReshape SparseFillEmptyRows SparseAdd SparseConcat SparseSlice SparseReduceSum
SparseReduceMax SparseReorder SparseSegmentMeanWithNumSegments SparseSegmentSumWithNumSegments
SparseSegmentSqrtNWithNumSegments SparseCross SparseCrossHashed SparseCrossV2 SparseTensorDenseAdd
SparseDenseCwiseAdd SparseDenseCwiseMul SparseDenseCwiseDiv SparseSoftmax SparseToSparseSetOperation
SparseRetain SparseSplit SerializeSparse DeserializeSparse
ScalarSummary HistogramSummary TensorSummary TensorSummaryV2 MergeSummary
"""

# Variables: state that lives in the model itself.
_VARIABLES = """
VarHandleOp VariableV2 Variable ReadVariableOp AssignVariableOp AssignAddVariableOp
AssignSubVariableOp Assign AssignAdd AssignSub VarIsInitializedOp ResourceGather DestroyResourceOp
DisableCopyOnRead
HashTableV2 MutableHashTableV2 MutableHashTableOfTensorsV2 LookupTableFindV2 LookupTableSizeV2
LookupTableImportV2 InitializeTableV2
"""

# The checkpoint machinery of a SavedModel's saver: reads and writes files by design.
SAVER_OPS = frozenset(
    "SaveV2 RestoreV2 SaveSlices RestoreSlice Save Restore MergeV2Checkpoints ShardedFilename "
    "ShardedFilespec".split()
)

SAFE_OPS = frozenset(_SAFE.split()) | frozenset(_VARIABLES.split())

# Ops that create model state needing an init op (tables); variables are handled by tfport.
TABLE_OPS = frozenset(
    "HashTableV2 MutableHashTableV2 MutableHashTableOfTensorsV2 HashTable MutableHashTable".split()
)

VARIABLE_OPS = frozenset("VarHandleOp VariableV2 Variable".split())

# Ops without data outputs: never reported as graph outputs.
NO_OUTPUT_OPS = frozenset(
    "NoOp Assert AssignVariableOp AssignAddVariableOp AssignSubVariableOp SaveV2 Save "
    "SaveSlices MergeV2Checkpoints WriteFile PrintV2 ControlTrigger DestroyResourceOp "
    "InitializeTableV2 LookupTableImportV2".split()
)

# Safe ops whose output size comes from run-time values (a shape, a count, a serialized
# tensor, decoded data) or from an attribute no limit holds (AsString's width): no scan
# can bound the memory they take; only --max-memory does when the graph runs.
UNBOUNDED_OPS = frozenset(
    "Fill Empty ParseTensor AsString Range LinSpace Tile BroadcastTo Pad PadV2 MirrorPad "
    "OneHot ScatterNd SparseToDense UnsortedSegmentSum UnsortedSegmentMax UnsortedSegmentMin "
    "UnsortedSegmentProd Bincount Multinomial StatelessMultinomial RandomUniform "
    "RandomStandardNormal RandomUniformInt TruncatedNormal StatelessRandomNormal "
    "StatelessRandomNormalV2 StatelessRandomUniform StatelessRandomUniformV2 "
    "StatelessRandomUniformInt StatelessRandomUniformIntV2 StatelessTruncatedNormal "
    "StatelessTruncatedNormalV2 TensorListReserve TensorArrayV3 MatrixDiagV2 MatrixDiagV3 "
    "ResizeArea ResizeBicubic ResizeBilinear ResizeNearestNeighbor CropAndResize "
    "DecodeJpeg DecodePng DecodeImage DecodeBmp DecodeGif DecodeBase64 DecodeRaw "
    "RegexReplace StaticRegexReplace StringJoin".split()
)
