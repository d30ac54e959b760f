"""Plumbing shared by the op families: the error-recording decorator and shape helpers."""
# pylint: disable=invalid-name

import functools

from ._builder import BuilderError
from ._builder import XlaBuilder
from ._builder import XlaOp

__all__ = []


# --- plumbing -------------------------------------------------------------------------

def _find_builder(args, kwargs):
  for a in list(args) + list(kwargs.values()):
    if isinstance(a, XlaBuilder):
      return a
    if isinstance(a, XlaOp):
      return a._builder
    if isinstance(a, (list, tuple)):
      for x in a:
        if isinstance(x, XlaOp):
          return x._builder
  return None


def _op(fn):
  """Records fn's BuilderError/ValueError/TypeError in the builder; returns invalid ops."""

  @functools.wraps(fn)
  def wrapper(*args, **kwargs):
    builder = _find_builder(args, kwargs)
    if builder is None:
      raise TypeError("%s needs an XlaBuilder or XlaOp argument" % fn.__name__)
    if builder._first_error is not None:
      return XlaOp(builder, -1)
    try:
      return fn(*args, **kwargs)
    except (BuilderError, ValueError, TypeError, IndexError, KeyError) as e:
      return builder._report("%s: %s" % (fn.__name__, e))

  return wrapper


def _shape(op):
  return op._builder._shape(op)


def _array_shape(op, what="operand"):
  s = _shape(op)
  if not s.is_array():
    raise BuilderError("%s must be an array, got %s" % (what, s))
  return s


def _same_builder(*ops_):
  builder = None
  for o in ops_:
    if not isinstance(o, XlaOp):
      raise BuilderError("expected XlaOp, got %s" % type(o).__name__)
    if builder is None:
      builder = o._builder
    elif o._builder is not builder:
      raise BuilderError("ops from different builders (%r and %r)" % (builder._name,
                                                                       o._builder._name))
    builder._check(o)
  return builder


def _shape_str(s):
  return s.to_string(print_layout=False)


def _dims(values):
  return [int(v) for v in values]


def _canonical_dim(dim, rank, what="dimension"):
  dim = int(dim)
  if dim < 0:
    dim += rank
  if not 0 <= dim < rank:
    raise BuilderError("%s %d out of range for rank %d" % (what, dim, rank))
  return dim
