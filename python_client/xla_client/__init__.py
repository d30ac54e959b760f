"""xla_client: build XLA computations in Python and run them on a remote xla-server.

  import numpy as np
  import xla_client as xc
  from xla_client import ops

  client = xc.Client("127.0.0.1:50051")
  b = xc.XlaBuilder("axpy")
  x = ops.Parameter(b, 0, xc.Shape.array_shape(np.float32, (3,)))
  ops.Add(ops.Mul(ops.Constant(b, np.float32(2)), x), ops.Constant(b, np.ones(3, np.float32)))
  exe = client.compile(b.build())
  client.execute_and_transfer(exe, [np.arange(3, dtype=np.float32)])  # [1., 3., 5.]
"""

# pylint: disable=g-importing-member
from . import ops
from ._builder import current_source_info_metadata
from ._builder import XlaBuilder
from ._builder import XlaComputation
from ._builder import XlaOp
from ._client import Client
from ._client import Executable
from ._client import GlobalData
from ._client import PROTOCOL_VERSION
from ._client import XlaRuntimeError
from ._helpers import ChannelHandle
from ._helpers import ConvolutionDimensionNumbers
from ._helpers import DotDimensionNumbers
from ._helpers import ExecutionProfile
from ._helpers import FftType
from ._helpers import FrontendAttributes
from ._helpers import GatherDimensionNumbers
from ._helpers import make_convolution_dimension_numbers
from ._helpers import make_dot_dimension_numbers
from ._helpers import make_padding_config
from ._helpers import make_replica_groups
from ._helpers import OpMetadata
from ._helpers import OpSharding
from ._helpers import PaddingConfig
from ._helpers import PaddingConfigDimension
from ._helpers import PaddingType
from ._helpers import PrecisionConfig
from ._helpers import RandomAlgorithm
from ._helpers import ReplicaGroup
from ._helpers import ScatterDimensionNumbers
from ._helpers import TriangularSolveOptions_Transpose
from ._helpers import window_padding_type_to_pad_values
from ._literal import Literal
from ._local import LocalServer
from ._shape import ProgramShape
from ._shape import Shape
from ._shape import shape_from_pyval
from ._types import bits_to_float
from ._types import dtype_to_etype
from ._types import etype_to_dtype
from ._types import float_to_bits
from ._types import HAS_ML_DTYPES
from ._types import PrimitiveType

__version__ = "0.1.0"

# XLA's xla_client has this table too.
XLA_ELEMENT_TYPE_TO_DTYPE = {t: etype_to_dtype(t) for t in PrimitiveType
                             if t not in (PrimitiveType.PRIMITIVE_TYPE_INVALID,
                                          PrimitiveType.TUPLE, PrimitiveType.OPAQUE_TYPE,
                                          PrimitiveType.TOKEN, PrimitiveType.BUFFER)}

__all__ = [name for name in dir() if not name.startswith("_")]
