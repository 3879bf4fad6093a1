#include "bench/DatasetTasks.h"

#include <fmt/format.h>

#include <cmath>
#include <random>

namespace tk::bench {

double DatasetTask::flops() const {
  double f = 2;
  for (const auto &[k, v] : shape) f *= double(v);
  return f;
}

std::string datasetOpSource(const DatasetTask &t) {
  // Bodies by op; {M} {N} {K} {BT} are the task's sizes.
  static const std::map<std::string, std::string> ops{
      {"matmul", "(A: f32[{M}, {K}], B: f32[{K}, {N}]) -> C: f32[{M}, {N}] {{ C[i, j] = sum(k) A[i, k] * B[k, j]; }}"},
      {"matmul_nt", "(A: f32[{M}, {K}], B: f32[{N}, {K}]) -> C: f32[{M}, {N}] {{ C[i, j] = sum(k) A[i, k] * B[j, k]; }}"},
      {"matmul_tn", "(A: f32[{K}, {M}], B: f32[{K}, {N}]) -> C: f32[{M}, {N}] {{ C[i, j] = sum(k) A[k, i] * B[k, j]; }}"},
      {"matmul_f64", "(A: f64[{M}, {K}], B: f64[{K}, {N}]) -> C: f64[{M}, {N}] {{ C[i, j] = sum(k) A[i, k] * B[k, j]; }}"},
      {"bmm", "(A: f32[{BT}, {M}, {K}], B: f32[{BT}, {K}, {N}]) -> C: f32[{BT}, {M}, {N}] "
              "{{ C[b, i, j] = sum(k) A[b, i, k] * B[b, k, j]; }}"},
      {"bmm_shared", "(A: f32[{BT}, {M}, {K}], B: f32[{K}, {N}]) -> C: f32[{BT}, {M}, {N}] "
                     "{{ C[b, i, j] = sum(k) A[b, i, k] * B[k, j]; }}"},
  };
  auto at = [&](const char *k) {
    auto it = t.shape.find(k);
    return it == t.shape.end() ? int64_t(1) : it->second;
  };
  std::string body = fmt::vformat(ops.at(t.op), fmt::make_format_args(fmt::arg("M", at("M")), fmt::arg("N", at("N")),
                                                                      fmt::arg("K", at("K")), fmt::arg("BT", at("BT"))));
  return "op " + t.op + body + "\n";
}

namespace {

bool isPrime(int64_t v) {
  if (v < 2) return false;
  for (int64_t d = 2; d * d <= v; ++d)
    if (v % d == 0) return false;
  return true;
}

DatasetTask mm(const std::string &op, int64_t m, int64_t n, int64_t k, const std::string &origin, int64_t bt = 0) {
  DatasetTask t{op, {{"M", m}, {"N", n}, {"K", k}}, origin};
  if (bt) t.shape["BT"] = bt;
  return t;
}

} // namespace

std::vector<DatasetTask> datasetTasks(size_t count, uint64_t seed) {
  std::vector<DatasetTask> out{
      mm("matmul", 512, 2304, 768, "bert-qkv"),  mm("matmul", 512, 3072, 768, "bert-ffn1"),
      mm("matmul", 512, 768, 3072, "bert-ffn2"), mm("matmul", 512, 768, 768, "bert-proj"),
      mm("matmul", 32, 1000, 2048, "resnet-fc"), mm("matmul", 1024, 1024, 1024, "square"),
      mm("matmul", 256, 256, 256, "square"),     mm("matmul", 512, 512, 512, "square"),
      mm("matmul_nt", 512, 512, 64, "attention-scores"), mm("bmm", 384, 64, 384, "attention-values", 12),
      mm("matmul", 16384, 64, 64, "tall"),       mm("matmul", 64, 16384, 64, "wide"),
  };
  const char *ops[] = {"matmul", "matmul", "matmul_nt", "matmul_tn", "matmul_f64", "bmm", "bmm_shared"};
  std::mt19937_64 rng(seed);
  auto size = [&](bool prime) {
    std::uniform_real_distribution<double> u(1.0, std::log2(1536.0));
    int64_t v = std::llround(std::exp2(u(rng)));
    if (prime)
      while (!isPrime(v)) ++v;
    return v;
  };
  while (out.size() < count) {
    std::string op = ops[rng() % 7];
    bool prime = rng() % 3 == 0;
    int64_t bt = op.rfind("bmm", 0) == 0 ? 1 + int64_t(rng() % 16) : 0;
    DatasetTask t = mm(op, size(prime), size(prime), size(prime), "random", bt);
    // Two rows at least: one row takes the row-vector version, which no
    // blocking changes.
    if (t.shape["M"] < 2 || t.flops() > 2.2e9 || t.flops() < 2e6) continue;
    out.push_back(std::move(t));
  }
  out.resize(count);
  return out;
}

} // namespace tk::bench
