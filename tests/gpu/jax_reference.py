"""JAX's times for the gpu device check's benchmarks, on the GPU machine (tests/gpu/device_check.sh run).

The same computations as the curated benchmark modules (backends/gpu/testing/gpu_test_modules.h),
written with jax.numpy and compiled by JAX's own XLA: GELU (tanh form) over f32[16384,16384],
row softmax over f32[16384,16384], an 8192^3 bf16 matmul, the MLP forward at batch 4096 (f32,
default precision), a stable argsort of 16M f32 keys, top_k (k=40) of f32[256,32000], a 1000-step fori_loop over f32[4096] and
256 row updates of a f32[4096,4096] KV cache in a fori_loop, a cholesky solve of 4096 rows, an
f32[8192,8192] transpose, attention's key transpose ([8,4096,32,128] bf16 to [8,32,128,4096],
scaled) and a cumsum of 16M f32.
Prints one markdown row per benchmark (median of 10 after a warm-up); prints a single line saying
why and exits 0 where JAX or its GPU is missing.
"""
import os
import statistics
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


def median_seconds(fn, *args, runs=10):
    import jax

    jax.block_until_ready(fn(*args))
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    try:
        import jax
        import jax.numpy as jnp
    except ImportError as e:
        print(f"jax reference: JAX is not installed ({e})")
        return 0
    if not any(d.platform == "gpu" for d in jax.devices()):
        print(f"jax reference: JAX sees no GPU ({jax.devices()})")
        return 0
    key = jax.random.PRNGKey(0)
    rows = []

    def gelu(x):
        return 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))

    def softmax(x):
        e = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
        return e / jnp.sum(e, axis=1, keepdims=True)

    x = jax.random.uniform(key, (16384, 16384), jnp.float32, -2, 2)
    for name, fn in (("gelu_256M", gelu), ("softmax_16384x16384", softmax)):
        s = median_seconds(jax.jit(fn), x)
        rows.append(f"| jax {name} | {s * 1e3:.3f} ms, {2 * x.nbytes / s / 1e9:.0f} GB/s | JAX {jax.__version__} |")
    del x

    a = jax.random.uniform(key, (8192, 8192), jnp.float32, -2, 2).astype(jnp.bfloat16)
    s = median_seconds(jax.jit(jnp.matmul), a, a)
    rows.append(f"| jax matmul_bf16_8192 | {s * 1e3:.3f} ms, {2 * 8192 ** 3 / s / 1e12:.1f} TFLOP/s | JAX {jax.__version__} |")
    s = median_seconds(jax.jit(lambda a, b: jnp.matmul(a, b.T)), a, a)
    rows.append(f"| jax matmul_bf16_8192_rhs_transposed | {s * 1e3:.3f} ms, {2 * 8192 ** 3 / s / 1e12:.1f} TFLOP/s | "
                f"JAX {jax.__version__} |")
    del a

    def mlp(x, w1, b1, w2, b2, w3, b3):
        h1 = jnp.maximum(x @ w1 + b1, 0)
        h2 = jnp.maximum(h1 @ w2 + b2, 0)
        return softmax(h2 @ w3 + b3)

    shapes = [(4096, 784), (784, 1024), (1024,), (1024, 1024), (1024,), (1024, 10), (10,)]
    params = [jax.random.uniform(jax.random.fold_in(key, i), sh, jnp.float32, -2, 2) for i, sh in enumerate(shapes)]
    s = median_seconds(jax.jit(mlp), *params)
    rows.append(f"| jax mlp_forward_batch4096 | {s * 1e3:.3f} ms, {15360000000 / s / 1e12:.1f} TFLOP/s | "
                f"JAX {jax.__version__} |")
    keys = jax.random.uniform(key, (1 << 24,), jnp.float32, -2, 2)

    def argsort(k):
        return jax.lax.sort((k, jnp.arange(k.shape[0], dtype=jnp.int32)), num_keys=1, is_stable=True)

    s = median_seconds(jax.jit(lambda k: argsort(k)[1]), keys)
    rows.append(f"| jax argsort_16M | {s * 1e3:.3f} ms | JAX {jax.__version__} |")
    logits = jax.random.uniform(key, (256, 32000), jnp.float32, -2, 2)
    s = median_seconds(jax.jit(lambda x: jax.lax.top_k(x, 40)), logits)
    rows.append(f"| jax topk_256x32000_k40 | {s * 1e3:.3f} ms | JAX {jax.__version__} |")
    del logits
    x = jax.random.uniform(key, (4096,), jnp.float32, -2, 2)
    s = median_seconds(jax.jit(lambda v: jax.lax.fori_loop(0, 1000, lambda i, y: y * 0.999 + 0.001, v)), x)
    rows.append(f"| jax counted_loop_1000 | {s * 1e3:.3f} ms, {s * 1e6 / 1000:.2f} us per iteration | "
                f"JAX {jax.__version__} |")
    cache = jax.random.uniform(key, (4096, 4096), jnp.float32, -2, 2)

    def kv_cache(c):
        def step(i, c):
            return c.at[i].set(i.astype(jnp.float32) + jnp.arange(4096, dtype=jnp.float32))
        return jax.lax.fori_loop(0, 256, step, c)

    s = median_seconds(jax.jit(kv_cache), cache)
    rows.append(f"| jax kv_cache_update_256 | {s * 1e3:.3f} ms, {s * 1e6 / 256:.2f} us per update | "
                f"JAX {jax.__version__} |")
    x = jax.random.uniform(key, (4096, 4096), jnp.float32, -1, 1)
    b = jax.random.uniform(jax.random.fold_in(key, 1), (4096, 16), jnp.float32, -1, 1)

    def cholesky_solve(x, b):
        a = jnp.matmul(x, x.T, precision=jax.lax.Precision.HIGHEST) + 4096 * jnp.eye(4096, dtype=jnp.float32)
        l = jnp.linalg.cholesky(a)
        y = jax.scipy.linalg.solve_triangular(l, b, lower=True)
        return l, jax.scipy.linalg.solve_triangular(l, y, lower=True, trans=1)

    s = median_seconds(jax.jit(cholesky_solve), x, b)
    rows.append(f"| jax cholesky_solve_4096 | {s * 1e3:.3f} ms (f32, cuSOLVER) | JAX {jax.__version__} |")
    del x, b
    x = jax.random.uniform(key, (8192, 8192), jnp.float32, -1, 1)
    s = median_seconds(jax.jit(jnp.transpose), x)
    rows.append(f"| jax transpose_8192x8192 | {s * 1e3:.3f} ms, {2 * x.nbytes / s / 1e9:.0f} GB/s | JAX {jax.__version__} |")
    del x
    k = jax.random.uniform(key, (8, 4096, 32, 128), jnp.float32, -1, 1).astype(jnp.bfloat16)
    s = median_seconds(jax.jit(lambda k: jnp.transpose(k, (0, 2, 3, 1)) * jnp.bfloat16(0.125)), k)
    rows.append(f"| jax key_transpose_bf16 | {s * 1e3:.3f} ms, {2 * k.nbytes / s / 1e9:.0f} GB/s | JAX {jax.__version__} |")
    del k
    x = jax.random.uniform(key, (1 << 24,), jnp.float32, -1, 1)
    s = median_seconds(jax.jit(jnp.cumsum), x)
    rows.append(f"| jax cumsum_16M | {s * 1e3:.3f} ms, {2 * x.nbytes / s / 1e9:.0f} GB/s | JAX {jax.__version__} |")
    del x
    for row in rows:
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
