// MalformedPtx: bad input never crashes the executor. Each PTX file given
// is mutated many times (a line deleted, duplicated or swapped, an operand
// dropped, a character changed, the text cut short, a register renamed);
// every mutant is loaded, and every kernel of a mutant that loads is
// launched (2 blocks of 64 threads, every parameter pointing at a zeroed
// 1 MiB device buffer). Loading must give CUDA_SUCCESS or
// CUDA_ERROR_INVALID_PTX, a launch success or one of the executor's check
// errors; a crash or a hang fails the test (ctest's timeout). A small
// TK_CUDA_EMU_WATCHDOG ends the mutants that loop.
//
//   malformed_ptx MUTANTS_PER_FILE FILE.ptx...
#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string join(const std::vector<std::string> &ls) {
  std::string out;
  for (const std::string &l : ls) out += l + "\n";
  return out;
}

std::string mutate(const std::string &text, std::mt19937 &rng) {
  std::vector<std::string> ls = lines(text);
  if (ls.empty()) return text;
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  size_t i = pick(ls.size());
  switch (pick(7)) {
  case 0: ls.erase(ls.begin() + static_cast<std::ptrdiff_t>(i)); break;
  case 1: ls.insert(ls.begin() + static_cast<std::ptrdiff_t>(i), ls[i]); break;
  case 2: std::swap(ls[i], ls[pick(ls.size())]); break;
  case 3: { // drop one operand
    std::string &l = ls[i];
    size_t comma = l.find(',');
    if (comma != std::string::npos) {
      size_t end = l.find_first_of(",;", comma + 1);
      l.erase(comma, end == std::string::npos ? std::string::npos : end - comma);
    }
    break;
  }
  case 4: { // change one character
    std::string &l = ls[i];
    if (!l.empty()) l[pick(l.size())] = "0123456789%.,;[]{}+-_axf"[pick(24)];
    break;
  }
  case 5: return text.substr(0, pick(text.size()));
  default: ls[i] = std::regex_replace(ls[i], std::regex("%r([0-9]+)"), "%r" + std::to_string(pick(400))); break;
  }
  return join(ls);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: malformed_ptx MUTANTS_PER_FILE FILE.ptx...\n");
    return 2;
  }
  setenv("TK_CUDA_EMU_WATCHDOG", "20000", 1);
  setenv("TK_CUDA_EMU_THREADS", "1", 1);
  CUdevice dev;
  CUcontext ctx;
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) {
    std::fprintf(stderr, "no device\n");
    return 1;
  }
  CUdeviceptr buffer;
  if (cuMemAlloc(&buffer, 1 << 20) || cuMemsetD8(buffer, 0, 1 << 20)) return 1;
  const std::set<CUresult> launchOk = {CUDA_SUCCESS,          CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_MISALIGNED_ADDRESS,
                                       CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_ILLEGAL_INSTRUCTION, CUDA_ERROR_INVALID_VALUE};
  int mutants = std::atoi(argv[1]), failures = 0, loaded = 0, launched = 0, total = 0;
  std::vector<void *> params(64, &buffer);
  for (int f = 2; f < argc; ++f) {
    std::ifstream in(argv[f]);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string base = ss.str();
    std::mt19937 rng(static_cast<unsigned>(f));
    for (int m = 0; m < mutants; ++m, ++total) {
      std::string text = mutate(base, rng);
      if (m % 2) text = mutate(text, rng); // half get two mutations
      CUmodule mod;
      CUresult r = cuModuleLoadData(&mod, text.c_str());
      if (r != CUDA_SUCCESS) {
        if (r != CUDA_ERROR_INVALID_PTX) {
          std::printf("FAIL %s mutant %d: load returned %d\n", argv[f], m, r);
          ++failures;
        }
        continue;
      }
      ++loaded;
      std::smatch e;
      for (std::string rest = text; std::regex_search(rest, e, std::regex("\\.entry\\s+([A-Za-z_$][A-Za-z0-9_$]*)"));
           rest = e.suffix()) {
        CUfunction fn;
        if (cuModuleGetFunction(&fn, mod, e[1].str().c_str()) != CUDA_SUCCESS) continue;
        CUresult l = cuLaunchKernel(fn, 2, 1, 1, 64, 1, 1, 0, nullptr, params.data(), nullptr);
        cuCtxSynchronize();
        ++launched;
        if (!launchOk.count(l)) {
          std::printf("FAIL %s mutant %d: launch of %s returned %d\n", argv[f], m, e[1].str().c_str(), l);
          ++failures;
        }
      }
      cuModuleUnload(mod);
    }
  }
  std::printf("%d mutants, %d loaded, %d launches, %d failure(s)\n", total, loaded, launched, failures);
  return failures ? 1 : 0;
}
