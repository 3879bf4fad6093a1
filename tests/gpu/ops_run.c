/* The custom-operator suite (bench/ops/custom_ops.tk) compiled twice — for
 * the CPU (symbols renamed cpu_<op>) and for cuda (default schedules) —
 * run on the same random inputs, shapes with primes and 1, and compared:
 * the CPU code is tested against the interpreter elsewhere (e2e), so this
 * checks the PTX backend on every op of the suite. Exits 77 without a CUDA
 * driver or device. */
#include "ops_cpu.h"
#include "ops_cuda.h"
#include "output_hash.h"
#include "tkrt_cuda.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static float *randf(size_t n) {
  float *p = malloc(n * sizeof(float) + 4);
  for (size_t i = 0; i < n; ++i) p[i] = (float)rand() / RAND_MAX * 2.0f - 1.0f;
  return p;
}
static int8_t *randi8(size_t n) {
  int8_t *p = malloc(n + 4);
  for (size_t i = 0; i < n; ++i) p[i] = (int8_t)(rand() % 256 - 128);
  return p;
}
static void *dev(const void *h, size_t bytes) {
  void *d = NULL;
  if (tkrt_cuda_alloc(&d, (int64_t)bytes, NULL) != 0 || (h && tkrt_cuda_memcpy_to_device(d, h, bytes) != 0)) {
    fprintf(stderr, "device allocation or copy failed\n");
    exit(1);
  }
  return d;
}
static void back(void *h, const void *d, size_t bytes) {
  if (tkrt_cuda_synchronize(NULL) != 0 || tkrt_cuda_memcpy_to_host(h, d, bytes) != 0) {
    fprintf(stderr, "synchronize or copy back failed\n");
    exit(1);
  }
}
static void statuses(const char *what, int cpu, int gpu) {
  if (cpu != 0 || gpu != 0) {
    printf("%-40s status cpu %d gpu %d FAIL\n", what, cpu, gpu);
    ++failures;
  }
}
/* Compares n floats: |gpu - cpu| / (1 + |cpu|) <= tol everywhere. */
static void same(const char *what, const float *dgpu, const float *cpu, size_t n, double tol) {
  float *g = malloc(n * sizeof(float) + 4);
  back(g, dgpu, n * sizeof(float));
  record_output_hash(what, g, n * sizeof(float));
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double e = fabs((double)g[i] - cpu[i]) / (1.0 + fabs(cpu[i]));
    if (!(e <= worst)) worst = e;
  }
  int ok = worst <= tol;
  printf("%-40s n=%-8zu max rel diff %.3g %s\n", what, n, worst, ok ? "ok" : "FAIL");
  failures += !ok;
  free(g);
}

#define RUN(label, n, tol, cpucall, gpucall, out, dout)                                                          \
  do {                                                                                                         \
    float *out = malloc((n) * sizeof(float) + 4);                                                              \
    void *dout = dev(NULL, (n) * sizeof(float));                                                               \
    statuses(label, cpucall, gpucall);                                                                         \
    same(label, dout, out, n, tol);                                                                            \
    free(out);                                                                                                 \
    tkrt_cuda_free(dout, NULL);                                                                                \
  } while (0)

static void attention_case(int64_t S, int64_t D, int64_t T) {
  float *Q = randf(S * D), *K = randf(T * D), *V = randf(T * D);
  void *dQ = dev(Q, S * D * 4), *dK = dev(K, T * D * 4), *dV = dev(V, T * D * 4);
  char l[64];
  snprintf(l, sizeof l, "attention %lldx%lldx%lld", (long long)S, (long long)D, (long long)T);
  RUN(l, (size_t)(S * D), 1e-4, cpu_attention(Q, K, V, 0.3f, o, S, D, T), attention(dQ, dK, dV, 0.3f, g, S, D, T, NULL), o, g);
  if (S == T) {
    snprintf(l, sizeof l, "attention_causal %lldx%lld", (long long)S, (long long)D);
    RUN(l, (size_t)(S * D), 1e-4, cpu_attention_causal(Q, K, V, 0.3f, o, S, D), attention_causal(dQ, dK, dV, 0.3f, g, S, D, NULL), o, g);
  }
  tkrt_cuda_free(dQ, NULL), tkrt_cuda_free(dK, NULL), tkrt_cuda_free(dV, NULL);
  free(Q), free(K), free(V);
}

static void linear_case(int64_t M, int64_t K, int64_t H, int64_t N) {
  float *X = randf(M * K), *W1 = randf(K * H), *b1 = randf(H), *W2 = randf(H * N), *b2 = randf(N);
  void *dX = dev(X, M * K * 4), *dW1 = dev(W1, K * H * 4), *db1 = dev(b1, H * 4), *dW2 = dev(W2, H * N * 4),
       *db2 = dev(b2, N * 4);
  char l[64];
  snprintf(l, sizeof l, "linear_relu %lldx%lldx%lld", (long long)M, (long long)K, (long long)H);
  RUN(l, (size_t)(M * H), 1e-4, cpu_linear_relu(X, W1, b1, o, M, K, H), linear_relu(dX, dW1, db1, g, M, K, H, NULL), o, g);
  snprintf(l, sizeof l, "linear_gelu %lldx%lldx%lld", (long long)M, (long long)K, (long long)H);
  RUN(l, (size_t)(M * H), 1e-4, cpu_linear_gelu(X, W1, b1, o, M, K, H), linear_gelu(dX, dW1, db1, g, M, K, H, NULL), o, g);
  snprintf(l, sizeof l, "mlp %lldx%lldx%lldx%lld", (long long)M, (long long)K, (long long)H, (long long)N);
  RUN(l, (size_t)(M * N), 1e-4, cpu_mlp(X, W1, b1, W2, b2, o, M, K, H, N), mlp(dX, dW1, db1, dW2, db2, g, M, K, H, N, NULL), o, g);
  tkrt_cuda_free(dX, NULL), tkrt_cuda_free(dW1, NULL), tkrt_cuda_free(db1, NULL), tkrt_cuda_free(dW2, NULL),
      tkrt_cuda_free(db2, NULL);
  free(X), free(W1), free(b1), free(W2), free(b2);
}

static void rows_case(int64_t M, int64_t N) {
  float *X = randf(M * N), *w = randf(N), *bt = randf(N);
  void *dX = dev(X, M * N * 4), *dw = dev(w, N * 4), *db = dev(bt, N * 4);
  char l[64];
  size_t n = (size_t)(M * N);
  snprintf(l, sizeof l, "rmsnorm %lldx%lld", (long long)M, (long long)N);
  RUN(l, n, 1e-5, cpu_rmsnorm(X, w, 1e-5f, o, M, N), rmsnorm(dX, dw, 1e-5f, g, M, N, NULL), o, g);
  snprintf(l, sizeof l, "layernorm %lldx%lld", (long long)M, (long long)N);
  RUN(l, n, 1e-4, cpu_layernorm(X, w, bt, 1e-5f, o, M, N), layernorm(dX, dw, db, 1e-5f, g, M, N, NULL), o, g);
  snprintf(l, sizeof l, "softmax %lldx%lld", (long long)M, (long long)N);
  RUN(l, n, 1e-5, cpu_softmax(X, o, M, N), softmax(dX, g, M, N, NULL), o, g);
  snprintf(l, sizeof l, "gelu_tanh %lld", (long long)(M * N));
  RUN(l, n, 1e-5, cpu_gelu_tanh(X, o, M * N), gelu_tanh(dX, g, M * N, NULL), o, g);
  snprintf(l, sizeof l, "stencil2d %lldx%lld", (long long)M, (long long)N);
  RUN(l, n, 1e-6, cpu_stencil2d(X, o, M, N), stencil2d(dX, g, M, N, NULL), o, g);
  tkrt_cuda_free(dX, NULL), tkrt_cuda_free(dw, NULL), tkrt_cuda_free(db, NULL);
  free(X), free(w), free(bt);
}

static void contraction_case(int64_t BT, int64_t M, int64_t K, int64_t N) {
  float *A = randf(BT * M * K), *B = randf(BT * N * K), *C = randf(M * N);
  void *dA = dev(A, BT * M * K * 4), *dB = dev(B, BT * N * K * 4), *dC = dev(C, M * N * 4);
  char l[64];
  snprintf(l, sizeof l, "bmm_nt %lldx%lldx%lldx%lld", (long long)BT, (long long)M, (long long)K, (long long)N);
  RUN(l, (size_t)(BT * M * N), 1e-4, cpu_bmm_nt(A, B, o, BT, M, K, N), bmm_nt(dA, dB, g, BT, M, K, N, NULL), o, g);
  /* gemm reads A as M x K and B as K x N (B's first K*N elements). */
  snprintf(l, sizeof l, "gemm %lldx%lldx%lld", (long long)M, (long long)K, (long long)N);
  RUN(l, (size_t)(M * N), 1e-4, cpu_gemm(A, B, C, 1.5f, -0.5f, o, M, K, N), gemm(dA, dB, dC, 1.5f, -0.5f, g, M, K, N, NULL), o, g);
  snprintf(l, sizeof l, "syrk_lower %lldx%lld", (long long)M, (long long)K);
  RUN(l, (size_t)(M * M), 1e-4, cpu_syrk_lower(A, o, M, K), syrk_lower(dA, g, M, K, NULL), o, g);
  /* einsum bijk,jkl with I = M, J*K = K split as (K/4 rounded) x 4 when it divides. */
  if (K % 4 == 0) {
    int64_t J = K / 4, KK = 4, L = N;
    snprintf(l, sizeof l, "einsum %lldx%lldx%lldx%lldx%lld", (long long)BT, (long long)M, (long long)J, (long long)KK,
             (long long)L);
    RUN(l, (size_t)(BT * M * L), 1e-4, cpu_einsum_bijk_jkl(A, B, o, BT, M, J, KK, L),
        einsum_bijk_jkl(dA, dB, g, BT, M, J, KK, L, NULL), o, g);
  }
  tkrt_cuda_free(dA, NULL), tkrt_cuda_free(dB, NULL), tkrt_cuda_free(dC, NULL);
  free(A), free(B), free(C);
}

static void int8_case(int64_t M, int64_t K, int64_t N) {
  int8_t *A = randi8(M * K), *B = randi8(K * N);
  int32_t *c = malloc(M * N * 4 + 4), *g = malloc(M * N * 4 + 4);
  void *dA = dev(A, M * K), *dB = dev(B, K * N), *dC = dev(NULL, M * N * 4);
  statuses("matmul_i8", cpu_matmul_i8(A, B, c, M, K, N), matmul_i8(dA, dB, dC, M, K, N, NULL));
  back(g, dC, M * N * 4);
  int ok = memcmp(c, g, M * N * 4) == 0;
  printf("%-40s n=%-8lld %s\n", "matmul_i8 (exact)", (long long)(M * N), ok ? "ok" : "FAIL");
  failures += !ok;
  tkrt_cuda_free(dA, NULL), tkrt_cuda_free(dB, NULL), tkrt_cuda_free(dC, NULL);
  free(A), free(B), free(c), free(g);
}

static void windows_case(int64_t N, int64_t C, int64_t H, int64_t W) {
  float *X = randf(N * C * H * W), *Wt = randf(C * 9);
  void *dX = dev(X, N * C * H * W * 4), *dW = dev(Wt, C * 9 * 4);
  char l[64];
  size_t n = (size_t)(N * C * H * W);
  snprintf(l, sizeof l, "depthwise_conv %lldx%lldx%lldx%lld", (long long)N, (long long)C, (long long)H, (long long)W);
  RUN(l, n, 1e-5, cpu_depthwise_conv(X, Wt, 1, o, N, C, H, W, 3, 3), depthwise_conv(dX, dW, 1, g, N, C, H, W, 3, 3, NULL), o, g);
  snprintf(l, sizeof l, "stencil3d %lldx%lldx%lld", (long long)(N * C), (long long)H, (long long)W);
  RUN(l, n, 1e-6, cpu_stencil3d(X, o, N * C, H, W), stencil3d(dX, g, N * C, H, W, NULL), o, g);
  tkrt_cuda_free(dX, NULL), tkrt_cuda_free(dW, NULL);
  free(X), free(Wt);
}

int main(void) {
  int s = tkrt_cuda_init();
  if (s == TKRT_CUDA_NO_DRIVER || s == TKRT_CUDA_NO_DEVICE) {
    printf("SKIP: no CUDA %s (status %d)\n", s == TKRT_CUDA_NO_DRIVER ? "driver" : "device", s);
    return 77;
  }
  srand(7);
  attention_case(37, 19, 53);
  attention_case(64, 32, 64);
  attention_case(1, 1, 1);
  linear_case(37, 29, 41, 13);
  linear_case(1, 1, 1, 1);
  rows_case(37, 1001);
  rows_case(1, 7);
  contraction_case(3, 37, 44, 29);
  contraction_case(1, 1, 4, 1);
  int8_case(37, 53, 29);
  windows_case(2, 3, 17, 31);
  windows_case(1, 1, 1, 1);
  printf("%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
