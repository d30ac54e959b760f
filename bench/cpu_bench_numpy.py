"""NumPy side of bench/cpu_bench: the same f32 workloads, timed the same way.

cpu_bench (with /usr/bin/python3, Debian's numpy over OpenBLAS) starts it as
    cpu_bench_numpy.py --serve
and sends one command per line: `setup WORKLOAD` (builds the inputs, runs once, replies
`ready`), `run` (replies the milliseconds of one run), `quit`. Its runs alternate with the
CPU backend's, so both see the same machine load. By hand:
    cpu_bench_numpy.py WORKLOAD RUNS
prints `WORKLOAD MEDIAN_MS MIN_MS MAX_MS`. Inputs are uniform in [-1, 1) like the C++ side's.
Each expression is what a NumPy user writes for the workload (fresh result arrays, as NumPy
allocates them).
"""
import statistics
import sys
import time

import numpy as np

F = np.float32


def gelu_tanh(x):
    inner = F(0.7978845608) * (x + F(0.044715) * (x * x * x))
    return F(0.5) * x * (F(1) + np.tanh(inner))


def softmax_rows(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def mlp(x, w0, b0, w1, b1, w2, b2):
    h = np.maximum(x @ w0 + b0, F(0))
    h = np.maximum(h @ w1 + b1, F(0))
    return softmax_rows(h @ w2 + b2)


def topk_rows(x, k=40):
    part = np.argpartition(-x, k - 1, axis=1)[:, :k]
    values = np.take_along_axis(x, part, axis=1)
    order = np.argsort(-values, axis=1, kind="stable")
    indices = np.take_along_axis(part, order, axis=1)
    return np.concatenate([np.take_along_axis(values, order, axis=1), indices.astype(F)], axis=1)


def sort_complex(a, b):
    z = np.empty(a.shape, np.complex64)
    z.real = np.floor(a * F(16))
    z.imag = b
    s = np.sort(z)
    return np.concatenate([s.real, s.imag])


def fft_rows(a, b):
    t = np.fft.fft(a + 1j * b, axis=1)
    return np.concatenate([t.real, t.imag], axis=1).astype(F)


def rfft_rows(x):
    t = np.fft.rfft(x, axis=1)
    return np.concatenate([t.real, t.imag], axis=1).astype(F)


def fft2(a, b):
    t = np.fft.fft2(a + 1j * b)
    return np.concatenate([t.real, t.imag], axis=2).astype(F)


def rfft2(x):
    t = np.fft.rfft2(x)
    return np.concatenate([t.real, t.imag], axis=2).astype(F)


FFT_SHAPES = {"fft_1m": (1, 1 << 20), "fft_rows": (256, 4096), "fft_1000": (64, 1000), "fft_1009": (64, 1009)}


def max_pool(x):
    b, h, w, c = x.shape
    p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), constant_values=-np.inf)
    return np.maximum.reduce([p[:, i:i + h - 1:2, j:j + w - 1:2, :] for i in range(3) for j in range(3)])


def max_pool_grad(x, g):
    b, h, w, c = x.shape
    p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), constant_values=-np.inf)
    slices = [(slice(None), slice(i, i + h - 1, 2), slice(j, j + w - 1, 2)) for i in range(3) for j in range(3)]
    pooled = np.maximum.reduce([p[s] for s in slices])
    out = np.zeros_like(p)
    taken = np.zeros(pooled.shape, dtype=bool)
    for s in slices:
        first = (p[s] == pooled) & ~taken
        taken |= first
        out[s] += np.where(first, g, 0)
    return out[:, 1:-1, 1:-1, :]


def conv_kernel_grad(x, g):
    """The kernel gradient of a 3x3 SAME NHWC convolution: per tap, the padded input's shifted
    slice contracted with the output gradient over batch and positions."""
    b, h, w, c = x.shape
    p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    return np.stack([np.stack([np.tensordot(p[:, i:i + h, j:j + w, :], g, axes=([0, 1, 2], [0, 1, 2]))
                               for j in range(3)]) for i in range(3)])


def conv_depthwise(x, w):
    """A 3x3 SAME depthwise convolution of NHWC x by w[3, 3, 1, C]: nine shifted slices of the
    zero-padded input, each times its tap's weights."""
    b, h, wd, c = x.shape
    p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    out = np.zeros_like(x)
    for i in range(3):
        for j in range(3):
            out += p[:, i:i + h, j:j + wd, :] * w[i, j, 0, :]
    return out


def conv_depthwise_kernel_grad(x, g):
    """The kernel gradient of that depthwise convolution: per tap, the padded input's shifted
    slice times the gradient, summed over batch and positions for each channel."""
    b, h, w, c = x.shape
    p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    taps = [[np.einsum("nhwc,nhwc->c", p[:, i:i + h, j:j + w, :], g) for j in range(3)] for i in range(3)]
    return np.array(taps, dtype=F).reshape(3, 3, 1, c)


def uniform(rng, *shape):
    return rng.uniform(-1.0, 1.0, size=shape).astype(F)


def workload(name, rng):
    """Returns (function, arguments) for one workload at the issue's sizes."""
    if name == "gelu":
        return gelu_tanh, (uniform(rng, 16 << 20),)
    if name == "softmax":
        return softmax_rows, (uniform(rng, 4096, 4096),)
    if name == "sum":
        return np.sum, (uniform(rng, 64 << 20),)
    if name == "matmul":
        return np.matmul, (uniform(rng, 2048, 2048), uniform(rng, 2048, 2048))
    if name == "matmul_wT":
        return (lambda a, b: a @ b.T), (uniform(rng, 2048, 2048), uniform(rng, 2048, 2048))
    if name == "cumsum":
        return np.cumsum, (uniform(rng, 4 << 20),)
    if name == "cumsum_cols":
        return (lambda x: np.cumsum(x, axis=0)), (uniform(rng, 4096, 1024),)
    if name == "maxpool":
        return max_pool, (uniform(rng, 32, 112, 112, 64),)
    if name == "maxpool_grad":
        return max_pool_grad, (uniform(rng, 32, 112, 112, 64), uniform(rng, 32, 56, 56, 64))
    if name == "conv_depthwise":
        return conv_depthwise, (uniform(rng, 8, 56, 56, 64), uniform(rng, 3, 3, 1, 64))
    if name == "conv_dw_wgrad":
        return conv_depthwise_kernel_grad, (uniform(rng, 8, 56, 56, 64), uniform(rng, 8, 56, 56, 64))
    if name == "conv_wgrad":
        return conv_kernel_grad, (uniform(rng, 8, 56, 56, 64), uniform(rng, 8, 56, 56, 64))
    if name == "sort":
        return np.sort, (uniform(rng, 1 << 20),)
    if name == "argsort":
        return (lambda x: np.argsort(x, axis=1, kind="stable").astype(F)), (uniform(rng, 256, 4096),)
    if name == "lexsort":
        a, b = uniform(rng, 1 << 20), uniform(rng, 1 << 20)
        return (lambda a, b: np.lexsort((b, np.floor(a * F(16)))).astype(F)), (a, b)
    if name == "sort_complex":
        a, b = uniform(rng, 1 << 20), uniform(rng, 1 << 20)
        return sort_complex, (a, b)
    if name == "topk":
        return topk_rows, (uniform(rng, 256, 32000),)
    if name == "topk_row":
        return topk_rows, (uniform(rng, 1, 1 << 22),)
    if name in FFT_SHAPES:
        return fft_rows, (uniform(rng, *FFT_SHAPES[name]), uniform(rng, *FFT_SHAPES[name]))
    if name == "rfft_rows":
        return rfft_rows, (uniform(rng, 256, 4096),)
    if name == "fft2":
        return fft2, (uniform(rng, 8, 512, 512), uniform(rng, 8, 512, 512))
    if name == "fft2_2048":
        return fft2, (uniform(rng, 1, 2048, 2048), uniform(rng, 1, 2048, 2048))
    if name == "rfft2":
        return rfft2, (uniform(rng, 8, 512, 512),)
    if name == "bmm":
        return np.matmul, (uniform(rng, 32, 256, 256), uniform(rng, 32, 256, 256))
    if name == "mlp":
        widths = [784, 1024, 1024, 10]
        args = [uniform(rng, 256, widths[0])]
        for i in range(3):
            args += [uniform(rng, widths[i], widths[i + 1]), uniform(rng, widths[i + 1])]
        return mlp, tuple(args)
    raise SystemExit(f"unknown workload {name}")


def timed(fn, args):
    start = time.perf_counter()
    fn(*args)
    return (time.perf_counter() - start) * 1e3


def setup(name):
    fn, args = workload(name, np.random.default_rng(1))
    result = fn(*args)  # warm-up (and a dtype check: everything stays f32)
    if np.asarray(result).dtype != F:
        raise SystemExit(f"{name}: result is {np.asarray(result).dtype}, not float32")
    return fn, args


def serve():
    fn = args = None
    for line in sys.stdin:
        command = line.split()
        if not command:
            continue
        try:
            if command[0] == "hello":
                reply = "hello"
            elif command[0] == "setup":
                fn = args = None  # free the previous workload's inputs first
                fn, args = setup(command[1])
                reply = "ready"
            elif command[0] == "run":
                reply = f"{timed(fn, args):.4f}"
            elif command[0] == "quit":
                return
            else:
                reply = f"error unknown command {command[0]}"
        except (Exception, SystemExit) as e:  # the C++ side reports it
            reply = f"error {e}".replace("\n", " ")
        print(reply, flush=True)


def main():
    if sys.argv[1] == "--serve":
        serve()
        return
    name, runs = sys.argv[1], int(sys.argv[2])
    fn, args = setup(name)
    times = [timed(fn, args) for _ in range(runs)]
    print(f"{name} {statistics.median(times):.4f} {min(times):.4f} {max(times):.4f}")


if __name__ == "__main__":
    main()
