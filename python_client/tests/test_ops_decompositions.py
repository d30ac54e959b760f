"""ops.QR, QrDecomposition, ProductOfElementaryHouseholderReflectors, Eigh, SVD and LU (built
from HLO loops by the builder) against numpy, for f32, f64, c64 and c128.

Each result is checked by what defines it (q @ r == a with q orthonormal and r upper
triangular; v diag(w) v^T == a; u diag(d) v^T == a; a[perm] == L @ U) and against numpy's
own factorization where that is unique (|r|, eigenvalues, singular values, LU pivots).
Computations run compiled from the HloModuleProto and from as_hlo_text() (both go through
the server's verifier).
"""

import numpy as np
import pytest

import xla_client as xc
from xla_client import ops

RNG = np.random.RandomState(7)
TOL = {np.float32: 2e-5, np.float64: 1e-11}
CTOL = {np.complex64: np.float32, np.complex128: np.float64}  # the real type of each


def run(client, fn, arrays, forms=("proto", "text")):
  """Builds fn(*parameters) (a tuple of ops), runs it, returns the results of each form."""
  b = xc.XlaBuilder("decomposition")
  params = [ops.Parameter(b, i, xc.Shape.array_shape(a.dtype, a.shape))
            for i, a in enumerate(arrays)]
  ops.Tuple(b, list(fn(*params)))
  comp = b.build()
  results = []
  for form in forms:
    exe = client.compile(comp if form == "proto" else comp.as_hlo_text())
    results.append(client.execute_and_transfer(exe, list(arrays)))
  return results


def mT(x):
  return np.swapaxes(x, -1, -2)


def eye_like(x, n):
  return np.broadcast_to(np.eye(n, dtype=x.dtype), x.shape[:-2] + (n, n))


def scale(a):
  return max(1.0, float(np.abs(a).max())) if a.size else 1.0


def assert_close(got, want, dtype, factor=1.0, what=""):
  tol = TOL[dtype] * factor
  np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)


# --- QR -------------------------------------------------------------------------------

QR_SHAPES = [(1, 1), (4, 4), (6, 3), (3, 6), (2, 5, 4), (2, 3, 3, 5), (7, 1), (1, 5), (0, 3),
             (3, 0), (2, 0, 0)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", QR_SHAPES, ids=str)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_qr(client, dtype, shape, full_matrices):
  a = RNG.uniform(-2, 2, shape).astype(dtype)
  m, n = shape[-2:]
  k = min(m, n)
  for q, r in run(client, lambda x: ops.QR(x, full_matrices), [a]):
    assert q.dtype == dtype and r.dtype == dtype
    qcols = m if full_matrices else k
    rrows = m if full_matrices else k
    assert q.shape == shape[:-2] + (m, qcols)
    assert r.shape == shape[:-2] + (rrows, n)
    np.testing.assert_array_equal(r, np.triu(r))
    assert_close(mT(q) @ q, eye_like(q, qcols), dtype, 10, "q orthonormal")
    assert_close(q @ r, a, dtype, 10 * scale(a), "q @ r")
    # The reflectors are LAPACK's (xGEQRF), so q and r are numpy's, signs included.
    if a.size:
      q_np, r_np = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
      assert_close(r, r_np, dtype, 10 * scale(a), "r as numpy's")
      assert_close(q, q_np, dtype, 10, "q as numpy's")


def random_matrix(shape, dtype):
  x = RNG.uniform(-2, 2, shape)
  if np.issubdtype(dtype, np.complexfloating):
    x = x + 1j * RNG.uniform(-2, 2, shape)
  return x.astype(dtype)



@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (2, 3, 5), (1, 1)], ids=str)
def test_qr_complex(client, dtype, shape):
  a = random_matrix(shape, dtype)
  m, n = shape[-2:]
  tol = CTOL[dtype]
  for q, r in run(client, lambda x: ops.QR(x, True), [a]):
    assert q.dtype == dtype and r.dtype == dtype
    np.testing.assert_array_equal(r, np.triu(r))
    assert_close(mT(q).conj() @ q, eye_like(q, m), tol, 10, "q unitary")
    assert_close(q @ r, a, tol, 10 * scale(a), "q @ r")
    q_np, r_np = np.linalg.qr(a, mode="complete")
    assert_close(r, r_np, tol, 10 * scale(a), "r as numpy's")


QRD_SHAPES = [(4, 4), (6, 3), (3, 6), (2, 5, 4), (1, 1), (0, 2)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("shape", QRD_SHAPES, ids=str)
def test_qr_decomposition_and_householder_product(client, dtype, shape):
  a = random_matrix(shape, dtype)
  m, n = shape[-2:]
  k = min(m, n)
  tol = CTOL.get(dtype, dtype)

  def fn(x):
    q_and_r, taus = ops.QrDecomposition(x)
    # The first k columns of Q (xORGQR needs at least as many rows as columns).
    reflectors = ops.Slice(q_and_r, [0] * len(shape), shape[:-2] + (m, k), [1] * len(shape))
    return q_and_r, taus, ops.ProductOfElementaryHouseholderReflectors(reflectors, taus)

  for q_and_r, taus, q in run(client, fn, [a]):
    assert q_and_r.shape == shape and taus.shape == shape[:-2] + (k,)
    assert q.shape == shape[:-2] + (m, k) and q.dtype == dtype
    for index in np.ndindex(*shape[:-2]):
      # numpy's "raw" mode is LAPACK's xGEQRF output (h transposed).
      h, tau = np.linalg.qr(a[index], mode="raw")
      assert_close(q_and_r[index], h.T, tol, 10 * scale(a), "q_and_r as xGEQRF's")
      assert_close(taus[index], tau, tol, 10, "taus as xGEQRF's")
      if k:
        assert_close(q[index], np.linalg.qr(a[index])[0], tol, 10, "Q as xORGQR's")


def test_householder_product_errors():
  b = xc.XlaBuilder("bad")
  a = ops.Parameter(b, 0, xc.Shape.array_shape(np.float32, (3, 4)))
  t = ops.Parameter(b, 1, xc.Shape.array_shape(np.float32, (3,)))
  ops.ProductOfElementaryHouseholderReflectors(a, t)
  with pytest.raises(xc.XlaRuntimeError) as e:
    b.build()
  assert "at least as many rows as columns" in e.value.message, e.value.message
  b = xc.XlaBuilder("bad")
  a = ops.Parameter(b, 0, xc.Shape.array_shape(np.float32, (4, 3)))
  t = ops.Parameter(b, 1, xc.Shape.array_shape(np.float64, (3,)))
  ops.ProductOfElementaryHouseholderReflectors(a, t)
  with pytest.raises(xc.XlaRuntimeError) as e:
    b.build()
  assert "taus must be f32[k] with k <= 3, got f64[3]" in e.value.message, e.value.message


def test_qr_rank_deficient_and_zero(client):
  a = np.zeros((3, 4, 3), np.float64)
  a[1] = np.outer([1.0, 2.0, 3.0, 4.0], [1.0, -1.0, 0.5])  # rank 1
  a[2, :, 0] = 1.0  # one nonzero column, two zero ones
  q, r = run(client, lambda x: ops.QR(x, True), [a])[0]
  assert_close(q @ r, a, np.float64, 10)
  assert_close(mT(q) @ q, eye_like(q, 4), np.float64, 10)
  np.testing.assert_array_equal(r[0], np.zeros((4, 3)))
  np.testing.assert_array_equal(q[0], np.eye(4))


# --- Eigh -----------------------------------------------------------------------------

def symmetric(shape, dtype):
  x = RNG.uniform(-1, 1, shape)
  return (x + mT(x)).astype(dtype)


EIGH_SHAPES = [(1, 1), (2, 2), (5, 5), (8, 8), (3, 4, 4), (2, 2, 3, 3)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", EIGH_SHAPES, ids=str)
@pytest.mark.parametrize("lower", [True, False])
def test_eigh(client, dtype, shape, lower):
  sym = symmetric(shape, dtype)
  n = shape[-1]
  # Only the lower (upper) triangle may be read: fill the other one with garbage.
  garbage = RNG.uniform(50, 60, shape).astype(dtype)
  keep = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
  a = np.where(keep, sym, garbage)
  epsilon = 1e-5 if dtype == np.float32 else 1e-13
  for v, w in run(client, lambda x: ops.Eigh(x, lower=lower, epsilon=epsilon), [a]):
    assert v.shape == shape and w.shape == shape[:-1]
    assert v.dtype == dtype and w.dtype == dtype
    factor = 50 * scale(sym)
    assert_close(w, np.linalg.eigvalsh(sym), dtype, factor, "eigenvalues as numpy's")
    assert np.all(np.diff(w, axis=-1) >= 0), "eigenvalues ascending"
    assert_close(mT(v) @ v, eye_like(v, n), dtype, 50, "v orthogonal")
    assert_close((v * w[..., None, :]) @ mT(v), sym, dtype, factor, "v diag(w) v^T")


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (2, 5, 5)], ids=str)
@pytest.mark.parametrize("lower", [True, False])
def test_eigh_complex(client, dtype, shape, lower):
  x = random_matrix(shape, dtype)
  herm = (x + mT(x).conj()) / 2
  n = shape[-1]
  keep = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
  # Garbage in the other triangle and in the imaginary part of the diagonal.
  a = np.where(keep, herm, random_matrix(shape, dtype) * 50)
  a = a + 1j * np.eye(n) * 7
  tol = CTOL[dtype]
  epsilon = 1e-5 if dtype == np.complex64 else 1e-13
  for v, w in run(client, lambda y: ops.Eigh(y, lower=lower, epsilon=epsilon), [a.astype(dtype)]):
    assert v.dtype == dtype and w.dtype == tol
    factor = 50 * scale(herm)
    assert_close(w, np.linalg.eigvalsh(herm), tol, factor, "eigenvalues as numpy's")
    assert_close(mT(v).conj() @ v, eye_like(v, n), tol, 50, "v unitary")
    assert_close((v * w[..., None, :]) @ mT(v).conj(), herm, tol, factor, "v diag(w) v^H")


def test_eigh_unsorted_and_default_arguments(client):
  a = symmetric((3, 6, 6), np.float32)
  (v, w), = run(client, lambda x: ops.Eigh(x, sort_eigenvalues=False), [a], forms=("proto",))
  np.testing.assert_allclose(np.sort(w, axis=-1), np.linalg.eigvalsh(a), rtol=1e-4, atol=1e-4)
  np.testing.assert_allclose((v * w[..., None, :]) @ mT(v), a, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("matrix", ["identity", "zero", "repeated", "diagonal"])
def test_eigh_degenerate(client, matrix):
  n = 5
  a = {"identity": np.eye(n), "zero": np.zeros((n, n)),
       "repeated": np.diag([2.0, -1.0, 2.0, 2.0, -1.0]) + 0.0,
       "diagonal": np.diag([3.0, -2.0, 1.0, 0.0, 5.0])}[matrix]
  if matrix == "repeated":  # rotate so that it is not diagonal
    q = np.linalg.qr(RNG.randn(n, n))[0]
    a = q @ a @ q.T
    a = (a + a.T) / 2
  v, w = run(client, lambda x: ops.Eigh(x, epsilon=1e-14), [a])[0]
  assert_close(w, np.linalg.eigvalsh(a), np.float64, 100)
  assert_close(v.T @ v, np.eye(n), np.float64, 100)
  assert_close((v * w) @ v.T, a, np.float64, 100)


def test_eigh_max_iter_zero_returns_the_diagonal(client):
  a = symmetric((4, 4), np.float64)
  v, w = run(client, lambda x: ops.Eigh(x, max_iter=0, sort_eigenvalues=False), [a])[0]
  np.testing.assert_array_equal(v, np.eye(4))
  np.testing.assert_array_equal(w, np.diag(a))


# --- SVD ------------------------------------------------------------------------------

SVD_SHAPES = [(1, 1), (4, 4), (6, 3), (3, 6), (2, 5, 4), (2, 3, 4, 6), (1, 4), (5, 1), (0, 3),
              (2, 3, 0)]


def check_svd(a, u, d, v, dtype, factor=100):
  m, n = a.shape[-2:]
  k = min(m, n)
  assert u.shape == a.shape[:-2] + (m, m)
  assert d.shape == a.shape[:-2] + (k,)
  assert v.shape == a.shape[:-2] + (n, n)
  real = CTOL.get(dtype, dtype)
  assert u.dtype == dtype and d.dtype == real and v.dtype == dtype
  f = factor * scale(a)
  dtype = real
  assert_close(d, np.linalg.svd(a, compute_uv=False) if a.size else d, dtype, f, "d")
  assert np.all(d >= 0) and np.all(np.diff(d, axis=-1) <= 0), "d descending, >= 0"
  assert_close(mT(u).conj() @ u, eye_like(u, m), dtype, factor, "u orthogonal")
  assert_close(mT(v).conj() @ v, eye_like(v, n), dtype, factor, "v orthogonal")
  assert_close((u[..., :, :k] * d[..., None, :]) @ mT(v[..., :, :k]).conj(), a, dtype, f,
               "u diag(d) v^H")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SVD_SHAPES, ids=str)
def test_svd(client, dtype, shape):
  a = RNG.uniform(-2, 2, shape).astype(dtype)
  epsilon = 1e-6 if dtype == np.float32 else 1e-14
  for u, d, v in run(client, lambda x: ops.SVD(x, epsilon=epsilon), [a]):
    check_svd(a, u, d, v, dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (6, 3), (2, 3, 5)], ids=str)
def test_svd_complex(client, dtype, shape):
  a = random_matrix(shape, dtype)
  epsilon = 1e-6 if dtype == np.complex64 else 1e-14
  for u, d, v in run(client, lambda x: ops.SVD(x, epsilon=epsilon), [a]):
    check_svd(a, u, d, v, dtype)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)], ids=str)
def test_svd_rank_deficient(client, shape):
  m, n = shape
  a = np.stack([np.outer(RNG.randn(m), RNG.randn(n)),  # rank 1
                np.zeros((m, n)),
                RNG.randn(m, 2) @ RNG.randn(2, n)])  # rank 2
  u, d, v = run(client, lambda x: ops.SVD(x, epsilon=1e-14), [a])[0]
  check_svd(a, u, d, v, np.float64)
  np.testing.assert_array_equal(d[1], np.zeros(min(m, n)))


def test_svd_default_arguments_f32(client):
  a = RNG.randn(3, 7, 5).astype(np.float32)
  (u, d, v), = run(client, ops.SVD, [a], forms=("proto",))
  check_svd(a, u, d, v, np.float32, factor=200)


# --- LU -------------------------------------------------------------------------------

def lu_reference(a):
  """Partial pivoting as LAPACK's getrf (first row of largest |value|): (lu, pivots, perm)."""
  a = np.array(a, np.complex128 if np.iscomplexobj(a) else np.float64)
  m, n = a.shape
  perm = np.arange(m)
  pivots = np.zeros(min(m, n), np.int32)
  for k in range(min(m, n)):
    p = k + int(np.argmax(np.abs(a[k:, k])))
    pivots[k] = p
    a[[k, p]] = a[[p, k]]
    perm[[k, p]] = perm[[p, k]]
    if a[k, k] != 0:
      a[k + 1:, k] /= a[k, k]
      a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
  return a, pivots, perm


def check_lu(a, lu, pivots, perm, dtype, factor=10):
  m, n = a.shape[-2:]
  lu_dtype, dtype = dtype, CTOL.get(dtype, dtype)
  k = min(m, n)
  assert lu.shape == a.shape and lu.dtype == lu_dtype
  assert pivots.shape == a.shape[:-2] + (k,) and pivots.dtype == np.int32
  assert perm.shape == a.shape[:-2] + (m,) and perm.dtype == np.int32
  lower = np.tril(lu, -1)[..., :, :k] + np.eye(m, k, dtype=lu_dtype)
  upper = np.triu(lu)[..., :k, :]
  permuted = np.take_along_axis(a, perm[..., :, None].astype(np.int64), axis=-2)
  assert_close(lower @ upper, permuted, dtype, factor * scale(a), "a[perm] == L @ U")
  assert np.all(np.abs(lower) <= 1 + 1e-6), "partial pivoting keeps |L| <= 1"
  # The pivots are the row swaps that make perm.
  for index in np.ndindex(*a.shape[:-2]):
    order = np.arange(m)
    for i, p in enumerate(pivots[index]):
      order[[i, p]] = order[[p, i]]
    np.testing.assert_array_equal(order, perm[index])


LU_SHAPES = [(1, 1), (4, 4), (2, 5, 5), (2, 2, 3, 3), (5, 3), (3, 5), (0, 0), (2, 0, 3)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", LU_SHAPES, ids=str)
def test_lu(client, dtype, shape):
  a = RNG.uniform(-2, 2, shape).astype(dtype)
  for lu, pivots, perm in run(client, ops.LU, [a]):
    check_lu(a, lu, pivots, perm, dtype)
    for index in np.ndindex(*shape[:-2]):
      ref_lu, ref_pivots, ref_perm = lu_reference(a[index])
      np.testing.assert_array_equal(pivots[index], ref_pivots)
      np.testing.assert_array_equal(perm[index], ref_perm)
      assert_close(lu[index], ref_lu, dtype, 10 * scale(a))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (5, 3)], ids=str)
def test_lu_complex(client, dtype, shape):
  a = random_matrix(shape, dtype)
  for lu, pivots, perm in run(client, ops.LU, [a]):
    check_lu(a, lu, pivots, perm, dtype)
    for index in np.ndindex(*shape[:-2]):
      np.testing.assert_array_equal(pivots[index], lu_reference(a[index])[1])


def test_lu_singular_and_needing_pivots(client):
  a = np.array([[[0.0, 1.0, 2.0], [0.0, 3.0, 4.0], [0.0, 5.0, 7.0]],  # zero first column
                [[0.0, 2.0, 0.0], [3.0, 0.0, 0.0], [0.0, 0.0, 4.0]],  # a permutation
                [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]]])  # rank 1
  lu, pivots, perm = run(client, ops.LU, [a])[0]
  check_lu(a, lu, pivots, perm, np.float64)
  assert np.all(np.isfinite(lu))
  np.testing.assert_array_equal(perm[1], [1, 0, 2])
  for index in range(3):
    ref_lu, ref_pivots, _ = lu_reference(a[index])
    np.testing.assert_array_equal(pivots[index], ref_pivots)
    np.testing.assert_allclose(lu[index], ref_lu, atol=1e-12)


# --- extreme magnitudes ---------------------------------------------------------------

@pytest.mark.parametrize("magnitude", [1e25, 1e-25, 1e-40])
def test_extreme_magnitudes_f32(client, magnitude):
  """Sums of squares of such f32 entries overflow (underflow); the results must not."""
  base = RNG.uniform(-2, 2, (2, 4, 3))
  a = (base * magnitude).astype(np.float32)
  sym = ((base[:, :3, :] + mT(base[:, :3, :])) * magnitude).astype(np.float32)
  assert np.all(np.isfinite(a)) and np.all(a != 0)

  def fn(x, y):
    return ops.QR(x, False) + ops.SVD(x) + ops.Eigh(y) + ops.QrDecomposition(x)

  for q, r, u, d, v, ev, w, q_and_r, taus in run(client, fn, [a, sym]):
    big = float(np.abs(a).max())
    # 1e-40 is subnormal in f32: only a few significant bits, so a loose tolerance.
    tol = 1e-4 if magnitude > 1e-38 else 0.05
    np.testing.assert_allclose(q @ r, a, rtol=0, atol=tol * big)
    np.testing.assert_allclose(mT(q) @ q, eye_like(q, 3), atol=tol)
    np.testing.assert_allclose(d, np.linalg.svd(a.astype(np.float64), compute_uv=False),
                               rtol=0, atol=tol * big)
    np.testing.assert_allclose((u[..., :3] * d[..., None, :]) @ mT(v), a, rtol=0, atol=tol * big)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(sym.astype(np.float64)), rtol=0,
                               atol=tol * float(np.abs(sym).max()))
    np.testing.assert_allclose((ev * w[..., None, :]) @ mT(ev), sym, rtol=0,
                               atol=tol * float(np.abs(sym).max()))
    np.testing.assert_allclose(np.triu(q_and_r)[..., :3, :], r, rtol=0, atol=tol * big)
    assert np.all(np.isfinite(taus))


# --- builder errors -------------------------------------------------------------------

def build_error(fn, shape, dtype):
  b = xc.XlaBuilder("bad")
  x = ops.Parameter(b, 0, xc.Shape.array_shape(dtype, shape))
  outs = fn(x)
  assert all(not o.valid() for o in outs)
  with pytest.raises(xc.XlaRuntimeError) as e:
    b.build()
  return e.value.message


DECOMPOSITIONS = {"QR": lambda x: ops.QR(x, True), "Eigh": ops.Eigh, "SVD": ops.SVD,
                  "LU": ops.LU, "QrDecomposition": ops.QrDecomposition}


@pytest.mark.parametrize("name", sorted(DECOMPOSITIONS))
def test_errors_rank_below_two(name):
  for shape in [(), (4,)]:
    message = build_error(DECOMPOSITIONS[name], shape, np.float32)
    assert name in message and "rank >= 2" in message, message


@pytest.mark.parametrize("name", sorted(DECOMPOSITIONS))
@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.bool_, np.float16])
def test_errors_element_type(name, dtype):
  message = build_error(DECOMPOSITIONS[name], (3, 3), dtype)
  assert name in message and "f32, f64, c64 or c128" in message, message


def test_errors_eigh_not_square():
  message = build_error(ops.Eigh, (2, 3, 4), np.float32)
  assert "Eigh needs square matrices" in message and "f32[2,3,4]" in message, message


def test_error_keeps_the_first_one():
  b = xc.XlaBuilder("bad")
  x = ops.Parameter(b, 0, xc.Shape.array_shape(np.float32, (4,)))
  ops.Neg(ops.QR(x, True)[0])
  with pytest.raises(xc.XlaRuntimeError) as e:
    b.build()
  assert e.value.message.startswith("QR:"), e.value.message
