#!/usr/bin/env python3
"""PyTorch eager column of tk_ops_bench: times the custom-operator suite
composed of the library calls a PyTorch user writes.

    python3 bench/ops_torch.py SPECFILE --threads T [--runs N] [--max-seconds S]

SPECFILE has one case per line, `NAME<TAB>OP<TAB>EXTENTS...` (tk_ops_bench
writes it, so the shapes are defined once, in bench/OpsBench.cpp). Prints
one JSON object {NAME: seconds per call}; a case whose op PyTorch cannot
run is left out (its error goes to stderr). Timing follows tk_bench: a
warm-up of >= 3 calls and >= 0.1 s, then up to N samples of >= 20 ms each,
the median per call.
"""
import argparse
import json
import math
import sys
import time

import torch
import torch.nn.functional as F


def rand(*shape):
    return torch.rand(*shape) * 2 - 1


def case(op, e):
    """Returns a no-argument callable running `op` at extents `e`."""
    if op in ("attention", "attention_causal"):
        S, T, D = (e[0], e[1], e[2]) if op == "attention" else (e[0], e[0], e[1])
        q, k, v, sc = rand(S, D), rand(T, D), rand(T, D), 1 / math.sqrt(D)
        if op == "attention":
            return lambda: torch.softmax(q @ k.T * sc, dim=-1) @ v
        mask = torch.full((S, T), float("-inf")).triu(1)
        return lambda: torch.softmax(q @ k.T * sc + mask, dim=-1) @ v
    if op in ("linear_relu", "linear_gelu"):
        M, K, N = e
        x, w, b = rand(M, K), rand(K, N), rand(N)
        if op == "linear_relu":
            return lambda: torch.relu(torch.addmm(b, x, w))
        return lambda: F.gelu(torch.addmm(b, x, w), approximate="tanh")
    if op == "mlp":
        M, K, H, N = e
        x, w1, b1, w2, b2 = rand(M, K), rand(K, H), rand(H), rand(H, N), rand(N)
        return lambda: torch.addmm(b2, F.gelu(torch.addmm(b1, x, w1), approximate="tanh"), w2)
    if op == "rmsnorm":
        M, N = e
        x, w = rand(M, N), rand(N)
        return lambda: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    if op == "layernorm":
        M, N = e
        x, g, b = rand(M, N), rand(N), rand(N)
        return lambda: F.layer_norm(x, (N,), g, b, 1e-5)
    if op == "softmax":
        M, N = e
        x = rand(M, N)
        return lambda: torch.softmax(x, dim=-1)
    if op == "gelu_tanh":
        x = rand(e[0])
        return lambda: F.gelu(x, approximate="tanh")
    if op == "bmm_nt":
        BT, M, K, N = e
        a, b = rand(BT, M, K), rand(BT, N, K)
        return lambda: torch.bmm(a, b.transpose(1, 2))
    if op == "depthwise_conv":
        N, C, H, W, R, S, pad = e
        x, w = rand(N, C, H, W), rand(C, 1, R, S)
        return lambda: F.conv2d(x, w, padding=pad, groups=C)
    if op == "matmul_i8":
        M, K, N = e
        a = torch.randint(-10, 11, (M, K), dtype=torch.int8)
        b = torch.randint(-10, 11, (K, N), dtype=torch.int8)
        return lambda: a.to(torch.int32) @ b.to(torch.int32)
    if op == "einsum":
        BT, I, J, K, L = e
        x, w = rand(BT, I, J, K), rand(J, K, L)
        return lambda: torch.einsum("bijk,jkl->bil", x, w)
    if op == "gemm":
        M, K, N = e
        a, b, c = rand(M, K), rand(K, N), rand(M, N)
        return lambda: torch.addmm(c, a, b, beta=0.5, alpha=1.5)
    if op == "matmul":
        M, K, N = e
        a, b = rand(M, K), rand(K, N)
        return lambda: a @ b
    if op == "syrk_lower":
        M, K = e
        a = rand(M, K)
        return lambda: torch.tril(a @ a.T)
    if op == "stencil2d":
        H, W = e
        x = rand(1, 1, H, W)
        k = torch.tensor([[0, 0.125, 0], [0.125, 0.5, 0.125], [0, 0.125, 0]]).view(1, 1, 3, 3)
        return lambda: F.conv2d(x, k, padding=1)
    if op == "stencil3d":
        D, H, W = e
        x = rand(1, 1, D, H, W)
        k = torch.zeros(3, 3, 3)
        k[1, 1, 1] = 0.4
        for d in ((0, 1, 1), (2, 1, 1), (1, 0, 1), (1, 2, 1), (1, 1, 0), (1, 1, 2)):
            k[d] = 0.1
        return lambda: F.conv3d(x, k.view(1, 1, 3, 3, 3), padding=1)
    raise ValueError(f"unknown op {op}")


def seconds(run, runs, max_seconds):
    t0 = time.perf_counter()
    calls = 0
    while calls < 3 or time.perf_counter() - t0 < 0.1:
        run()
        calls += 1
        if time.perf_counter() - t0 > max_seconds:
            return (time.perf_counter() - t0) / calls
    reps = max(1, int(0.02 / ((time.perf_counter() - t0) / calls)))
    times, start = [], time.perf_counter()
    while len(times) < runs and (not times or time.perf_counter() - start < max_seconds):
        a = time.perf_counter()
        for _ in range(reps):
            run()
        times.append((time.perf_counter() - a) / reps)
    times.sort()
    return times[len(times) // 2]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("specfile")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--max-seconds", type=float, default=2.0)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    out = {}
    with torch.inference_mode():
        for line in open(a.specfile):
            name, op, extents = line.rstrip("\n").split("\t")
            try:
                out[name] = seconds(case(op, [int(x) for x in extents.split()]), a.runs, a.max_seconds)
            except Exception as err:  # an op this PyTorch lacks: no entry, the reason on stderr
                print(f"ops_torch: {name}: {err}", file=sys.stderr)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
