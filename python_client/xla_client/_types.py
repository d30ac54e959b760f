"""Element types: XLA's PrimitiveType and its numpy dtypes.

Every XLA element type maps to one numpy dtype. bf16 and the f8/f4 types use ml_dtypes when
it is importable; otherwise they travel as unsigned bit patterns (uint16 for BF16, uint8 for
the 8- and 4-bit floats) and float_to_bits / bits_to_float convert. Sub-byte integer types
(S1..S4, U1..U4) are stored one element per byte (int8 / uint8), as on the wire.
"""

import enum

import numpy as np

from ._pb import xla_data_pb2

try:  # pragma: no cover - depends on the environment
  import ml_dtypes
except ImportError:
  ml_dtypes = None

PrimitiveType = enum.IntEnum(
    "PrimitiveType", {name: value for name, value in xla_data_pb2.PrimitiveType.items()})
PrimitiveType.__doc__ = "XLA's element types (xla_data.proto PrimitiveType)."

_P = PrimitiveType

# Reduced-precision float formats: (exponent bits, mantissa bits, bias, kind) where kind is
# "ieee" (inf and NaNs), "fn" (no inf; all-ones is NaN), "fnuz" (no inf, no -0; 0x80 is NaN),
# "e8m0" (exponent only, unsigned; 0xff is NaN).
FLOAT_FORMATS = {
    _P.BF16: (8, 7, 127, "ieee"),
    _P.F8E5M2: (5, 2, 15, "ieee"),
    _P.F8E4M3: (4, 3, 7, "ieee"),
    _P.F8E4M3FN: (4, 3, 7, "fn"),
    _P.F8E4M3B11FNUZ: (4, 3, 11, "fnuz"),
    _P.F8E3M4: (3, 4, 3, "ieee"),
    _P.F8E5M2FNUZ: (5, 2, 16, "fnuz"),
    _P.F8E4M3FNUZ: (4, 3, 8, "fnuz"),
    _P.F4E2M1FN: (2, 1, 1, "fn4"),
    _P.F8E8M0FNU: (8, 0, 127, "e8m0"),
}

_ML_NAMES = {
    _P.BF16: "bfloat16",
    _P.F8E5M2: "float8_e5m2",
    _P.F8E4M3: "float8_e4m3",
    _P.F8E4M3FN: "float8_e4m3fn",
    _P.F8E4M3B11FNUZ: "float8_e4m3b11fnuz",
    _P.F8E3M4: "float8_e3m4",
    _P.F8E5M2FNUZ: "float8_e5m2fnuz",
    _P.F8E4M3FNUZ: "float8_e4m3fnuz",
    _P.F4E2M1FN: "float4_e2m1fn",
    _P.F8E8M0FNU: "float8_e8m0fnu",
}

_ETYPE_TO_DTYPE = {
    _P.PRED: np.dtype(np.bool_),
    _P.S1: np.dtype(np.int8), _P.S2: np.dtype(np.int8), _P.S4: np.dtype(np.int8),
    _P.S8: np.dtype(np.int8), _P.S16: np.dtype(np.int16), _P.S32: np.dtype(np.int32),
    _P.S64: np.dtype(np.int64),
    _P.U1: np.dtype(np.uint8), _P.U2: np.dtype(np.uint8), _P.U4: np.dtype(np.uint8),
    _P.U8: np.dtype(np.uint8), _P.U16: np.dtype(np.uint16), _P.U32: np.dtype(np.uint32),
    _P.U64: np.dtype(np.uint64),
    _P.F16: np.dtype(np.float16), _P.F32: np.dtype(np.float32), _P.F64: np.dtype(np.float64),
    _P.C64: np.dtype(np.complex64), _P.C128: np.dtype(np.complex128),
}
_ML_DTYPES = {}
for _etype, _name in _ML_NAMES.items():
  _dt = getattr(ml_dtypes, _name, None) if ml_dtypes is not None else None
  if _dt is not None:
    _ML_DTYPES[_etype] = np.dtype(_dt)
    _ETYPE_TO_DTYPE[_etype] = np.dtype(_dt)
  else:
    _ETYPE_TO_DTYPE[_etype] = np.dtype(np.uint16 if _etype == _P.BF16 else np.uint8)

# numpy -> XLA: the natural types only (uint16 is U16, never BF16).
_DTYPE_TO_ETYPE = {
    np.dtype(np.bool_): _P.PRED,
    np.dtype(np.int8): _P.S8, np.dtype(np.int16): _P.S16, np.dtype(np.int32): _P.S32,
    np.dtype(np.int64): _P.S64,
    np.dtype(np.uint8): _P.U8, np.dtype(np.uint16): _P.U16, np.dtype(np.uint32): _P.U32,
    np.dtype(np.uint64): _P.U64,
    np.dtype(np.float16): _P.F16, np.dtype(np.float32): _P.F32, np.dtype(np.float64): _P.F64,
    np.dtype(np.complex64): _P.C64, np.dtype(np.complex128): _P.C128,
}
for _etype, _dt in _ML_DTYPES.items():
  _DTYPE_TO_ETYPE[_dt] = _etype

SUB_BYTE_BITS = {_P.S1: 1, _P.S2: 2, _P.S4: 4, _P.U1: 1, _P.U2: 2, _P.U4: 4}

HAS_ML_DTYPES = bool(_ML_DTYPES)


def as_etype(value):
  """PrimitiveType from a PrimitiveType, an int, a name ("f32", "F32") or a numpy dtype."""
  if isinstance(value, PrimitiveType):
    return value
  if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
    return PrimitiveType(int(value))
  if isinstance(value, str):
    upper = value.upper()
    if upper in PrimitiveType.__members__:
      return PrimitiveType[upper]
  return dtype_to_etype(value)


def dtype_to_etype(dtype):
  """The PrimitiveType of a numpy dtype (byte order ignored)."""
  try:
    dt = np.dtype(dtype)
  except TypeError:
    raise TypeError("not a numpy dtype: %r" % (dtype,)) from None
  if dt.byteorder not in ("=", "|"):
    dt = dt.newbyteorder("=")
  etype = _DTYPE_TO_ETYPE.get(dt)
  if etype is None:
    raise TypeError("no XLA element type for numpy dtype %s" % dt)
  return etype


def etype_to_dtype(etype):
  """The numpy dtype holding elements of an XLA array type."""
  etype = as_etype(etype)
  dt = _ETYPE_TO_DTYPE.get(etype)
  if dt is None:
    raise TypeError("%s has no numpy dtype (not an array element type)" % etype.name)
  return dt


def is_bit_pattern(etype):
  """True when etype is carried as raw unsigned bits (no ml_dtypes type for it)."""
  etype = as_etype(etype)
  return etype in FLOAT_FORMATS and etype not in _ML_DTYPES


def lowercase_name(etype):
  etype = as_etype(etype)
  if etype == _P.OPAQUE_TYPE:
    return "opaque"
  if etype == _P.TOKEN:
    return "token"
  return etype.name.lower()


def is_floating(etype):
  etype = as_etype(etype)
  return etype in (_P.F16, _P.F32, _P.F64) or etype in FLOAT_FORMATS


def is_complex(etype):
  return as_etype(etype) in (_P.C64, _P.C128)


def is_signed_int(etype):
  return as_etype(etype) in (_P.S1, _P.S2, _P.S4, _P.S8, _P.S16, _P.S32, _P.S64)


def is_unsigned_int(etype):
  return as_etype(etype) in (_P.U1, _P.U2, _P.U4, _P.U8, _P.U16, _P.U32, _P.U64)


def is_integral(etype):
  return is_signed_int(etype) or is_unsigned_int(etype)


def bit_width(etype):
  etype = as_etype(etype)
  if etype in SUB_BYTE_BITS:
    return SUB_BYTE_BITS[etype]
  if etype == _P.PRED:
    return 8
  if etype == _P.F4E2M1FN:
    return 4
  return etype_to_dtype(etype).itemsize * 8


# --- reduced-precision floats without ml_dtypes ---------------------------------------

_DECODE_TABLES = {}


def _decode_table(etype):
  """float64 value of every bit pattern of an 8- or 4-bit format (BF16 is handled apart)."""
  table = _DECODE_TABLES.get(etype)
  if table is not None:
    return table
  ebits, mbits, bias, kind = FLOAT_FORMATS[etype]
  nbits = 1 + ebits + mbits if kind != "e8m0" else 8
  values = np.empty(1 << nbits, np.float64)
  for bits in range(1 << nbits):
    if kind == "e8m0":
      values[bits] = np.nan if bits == 0xFF else 2.0 ** (bits - bias)
      continue
    sign = -1.0 if bits >> (ebits + mbits) else 1.0
    exp = (bits >> mbits) & ((1 << ebits) - 1)
    man = bits & ((1 << mbits) - 1)
    if exp == 0:
      v = sign * man * 2.0 ** (1 - bias - mbits)
    else:
      v = sign * (1 + man / float(1 << mbits)) * 2.0 ** (exp - bias)
    all_ones_exp = exp == (1 << ebits) - 1
    if kind == "ieee" and all_ones_exp:
      v = sign * np.inf if man == 0 else np.nan
    elif kind == "fn" and all_ones_exp and man == (1 << mbits) - 1:
      v = np.nan
    elif kind == "fnuz" and bits == 1 << (ebits + mbits):
      v = np.nan
    values[bits] = v
  _DECODE_TABLES[etype] = values
  return values


def bits_to_float(bits, etype):
  """float32 array from bit patterns of a reduced-precision type (BF16, F8*, F4E2M1FN)."""
  etype = as_etype(etype)
  bits = np.asarray(bits)
  if etype == _P.BF16:
    wide = np.atleast_1d(bits).astype(np.uint32) << np.uint32(16)
    return wide.view(np.float32).reshape(bits.shape)
  if etype not in FLOAT_FORMATS:
    raise TypeError("%s is not a reduced-precision float type" % etype.name)
  return _decode_table(etype)[bits.astype(np.intp)].astype(np.float32)


def float_to_bits(values, etype):
  """Bit patterns (uint16 for BF16, else uint8) of values rounded to nearest even."""
  etype = as_etype(etype)
  x = np.asarray(values, dtype=np.float32)
  if etype == _P.BF16:
    u = np.atleast_1d(x).view(np.uint32).astype(np.uint64)
    sixteen = np.uint64(16)
    rounded = (u + np.uint64(0x7FFF) + ((u >> sixteen) & np.uint64(1))) >> sixteen
    out = rounded.astype(np.uint16)
    nan = np.isnan(np.atleast_1d(x))
    out[nan] = ((u[nan] >> sixteen) | np.uint64(0x40)).astype(np.uint16)
    return out.reshape(x.shape)
  if etype not in FLOAT_FORMATS:
    raise TypeError("%s is not a reduced-precision float type" % etype.name)
  table = _decode_table(etype)
  finite = np.isfinite(table)
  codes = np.nonzero(finite)[0]
  vals = table[codes]
  order = np.lexsort((codes, vals))  # by value; -0 and +0 tie
  vals, codes = vals[order], codes[order]
  xd = x.astype(np.float64).ravel()
  idx = np.clip(np.searchsorted(vals, xd), 1, len(vals) - 1)
  lo, hi = vals[idx - 1], vals[idx]
  dlo, dhi = xd - lo, hi - xd
  pick_hi = (dhi < dlo) | ((dhi == dlo) & ((codes[idx] & 1) == 0))
  out = np.where(pick_hi, codes[idx], codes[idx - 1])
  # Values beyond the largest finite value: inf where the format has it, else NaN for
  # the formats without inf (XLA's saturating conversions are ops, not this helper).
  _, _, _, kind = FLOAT_FORMATS[etype]
  max_finite = vals[-1]
  nan_code = int(np.nonzero(np.isnan(table))[0][0]) if np.isnan(table).any() else 0
  inf_codes = np.nonzero(np.isinf(table))[0]
  big = np.abs(xd) > max_finite
  if big.any():
    if len(inf_codes):
      pos = int(inf_codes[table[inf_codes] > 0][0])
      neg = int(inf_codes[table[inf_codes] < 0][0]) if (table[inf_codes] < 0).any() else pos
      # round-to-nearest: values below max + half an ulp still round to max.
      ulp = vals[-1] - vals[-2]
      overflow = np.abs(xd) >= max_finite + ulp / 2
      out = np.where(overflow & (xd > 0), pos, out)
      out = np.where(overflow & (xd < 0), neg, out)
    else:
      out = np.where(big, nan_code, out)
  out = np.where(np.isnan(xd), nan_code, out)
  if kind == "fnuz":  # no negative zero
    out = np.where(xd == 0, 0, out)
  elif kind in ("ieee", "fn", "fn4"):
    neg_zero = np.signbit(xd) & (xd == 0)
    sign_bit = 1 << (FLOAT_FORMATS[etype][0] + FLOAT_FORMATS[etype][1])
    out = np.where(neg_zero, sign_bit, out)
  return out.astype(np.uint8).reshape(x.shape)
