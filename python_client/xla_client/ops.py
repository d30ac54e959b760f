"""XLA ops with xla_client's names and argument order; shapes are inferred as ops are added.

Every function returns an XlaOp. On invalid arguments the builder records the first error
(raised by build()) and the function returns an invalid XlaOp; later ops on a builder with
an error do nothing.
"""
# pylint: disable=invalid-name,wildcard-import,unused-wildcard-import
# The op families live in _ops_*.py; this module is the public namespace (xla_client.ops).

from ._builder import XlaBuilder
from ._builder import XlaComputation
from ._builder import XlaOp
from ._ops_data import *
from ._ops_elementwise import *
from ._ops_linalg import *
from ._ops_misc import *
from ._ops_reduce import *

# Ops composed from the ones above (XLA's client math library).
from ._ops_math import CrossReplicaSum
from ._ops_math import Digamma
from ._ops_math import ErfInv
from ._ops_math import Lgamma
from ._ops_math import NextAfter
from ._ops_special import BesselI0e
from ._ops_special import BesselI1e
from ._ops_special import Erfc
from ._ops_special import Igamma
from ._ops_special import IgammaGradA
from ._ops_special import Igammac
from ._ops_special import RandomGammaGrad
from ._ops_special import RegularizedIncompleteBeta
from ._ops_special import Zeta

# Matrix decompositions composed from HLO (XLA's client library: qr, self_adjoint_eig, svd,
# lu_decomposition).
from ._ops_decomp import Eigh
from ._ops_decomp import LU
from ._ops_decomp import ProductOfElementaryHouseholderReflectors
from ._ops_decomp import QR
from ._ops_decomp import QrDecomposition
from ._ops_decomp import SVD
