#include "tests/e2e/NativeOp.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <stdexcept>
#include <sys/wait.h>

namespace tk::e2e {

namespace {

std::string shellQuote(const std::string &s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs a shell command, capturing stdout+stderr; returns its exit status.
int runCommand(const std::string &cmd, std::string *output) {
  FILE *p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) output->append(buf.data(), n);
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// f16 / bf16 bit patterns of a value already rounded to that type.
uint16_t halfBits(double v) {
  _Float16 h = static_cast<_Float16>(v);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
double halfValue(uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return static_cast<double>(h);
}
uint16_t bf16Bits(double v) {
  float f = static_cast<float>(v); // exact: v is a bf16 value
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return static_cast<uint16_t>(b >> 16);
}
double bf16Value(uint16_t b) {
  uint32_t w = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}

// A double whose low bytes hold `bits` (see the calling convention note).
double sseSlot(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

// An f32 or f64 scalar argument's SSE slot.
double scalarSlot(double value, ir::ScalarType t) {
  double v = ir::roundToType(value, t);
  if (t == ir::ScalarType::F64) return v;
  float f = static_cast<float>(v);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return sseSlot(b);
}

// An f16 or bf16 scalar argument: its bit pattern, a uint16_t passed in an
// integer slot (docs/abi.md), zero-extended as the caller of a C function
// taking uint16_t would.
int64_t halfSlot(double value, ir::ScalarType t) {
  double v = ir::roundToType(value, t);
  return t == ir::ScalarType::F16 ? halfBits(v) : bf16Bits(v);
}

} // namespace

std::unique_ptr<NativeLibrary> NativeLibrary::build(const std::string &file, const CompileConfig &cfg,
                                                    std::string *error) {
  namespace fs = std::filesystem;
  fs::create_directories(cfg.workDir);
  std::string stem = fs::path(file).stem().string();
  std::string obj = (fs::path(cfg.workDir) / (stem + ".o")).string();
  std::string lib = (fs::path(cfg.workDir) / ("lib" + stem + ".so")).string();
  bool sunway = false, cuda = isCudaTarget(cfg.tkcFlags);
  std::string cmd = shellQuote(cfg.tkc);
  for (const std::string &f : cfg.tkcFlags) {
    cmd += " " + shellQuote(f);
    sunway |= f.rfind("--target=sunway", 0) == 0;
  }
  std::string link, out;
  if (sunway) {
    // The Sunway build: sources and a Makefile in a directory, built with
    // tk-sw5cc or tk-swgcc (next to tkc) into lib<stem>.a, which holds the emulator;
    // the generated C must pass -Wall -Wextra -Werror.
    std::string dir = (fs::path(cfg.workDir) / (stem + ".sunway")).string();
    fs::remove_all(dir);
    cmd += " " + shellQuote(file) + " -o " + shellQuote(dir + "/");
    fs::path bin = fs::absolute(fs::path(cfg.tkc).parent_path());
    cmd += " && make -s -C " + shellQuote(dir) + " TK_EMULATE=1 TK_SW5CC=" + shellQuote((bin / "tk-sw5cc").string()) +
           " TK_SWGCC=" + shellQuote((bin / "tk-swgcc").string()) + " " + shellQuote("CFLAGS=" + cfg.sunwayCflags);
    link = shellQuote(cfg.cc) + " -shared -Wl,--whole-archive " + shellQuote(dir + "/lib" + stem + ".a") +
           " -Wl,--no-whole-archive -o " + shellQuote(lib) + " -lm -lpthread";
  } else if (cuda) {
    // The host object calls tkrt_cuda_launch_kernel/alloc/free (the driver
    // is dlopened at run time, hence -ldl). The whole archive goes in so the
    // library also exports the copy and synchronize functions the caller
    // needs: kernels and caller then share one tkrt_cuda and one context.
    cmd += " --emit=obj " + shellQuote(file) + " -o " + shellQuote(obj);
    link = shellQuote(cfg.cc) + " -shared " + shellQuote(obj) + " -Wl,--whole-archive " +
           shellQuote((fs::path(cfg.runtimeLibDir) / "libtkrt_cuda.a").string()) + " -Wl,--no-whole-archive -o " +
           shellQuote(lib) + " -ldl -lpthread";
  } else {
    cmd += " --emit=obj " + shellQuote(file) + " -o " + shellQuote(obj);
    link = shellQuote(cfg.cc) + " -shared " + shellQuote(obj) + " -o " + shellQuote(lib) + " -L" +
           shellQuote(cfg.runtimeLibDir) + " -ltkrt -lm -lpthread";
  }
  if (runCommand(cmd, &out) != 0) {
    *error = "compiling failed: " + cmd + "\n" + out;
    return nullptr;
  }
  out.clear();
  if (runCommand(link, &out) != 0) {
    *error = "linking failed: " + link + "\n" + out;
    return nullptr;
  }
  void *h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    *error = std::string("dlopen failed: ") + dlerror();
    return nullptr;
  }
  return std::unique_ptr<NativeLibrary>(new NativeLibrary(h));
}

NativeLibrary::~NativeLibrary() { dlclose(handle_); }

void *NativeLibrary::symbol(const std::string &name) const { return dlsym(handle_, name.c_str()); }

TensorBuffer::TensorBuffer(ir::ScalarType dtype, size_t count) : dtype_(dtype), count_(count) {
  size_t bytes = count * static_cast<size_t>(ir::scalarTypeBytes(dtype));
  storage_.assign(bytes + 2 * kGuard + 64, 0xA5);
  auto addr = reinterpret_cast<uintptr_t>(storage_.data());
  base_ = storage_.data() + ((64 - addr % 64) % 64);
}

void TensorBuffer::store(const std::vector<double> &values) {
  if (values.size() != count_) throw std::invalid_argument("TensorBuffer::store: wrong element count");
  unsigned char *p = static_cast<unsigned char *>(data());
  for (size_t i = 0; i < count_; ++i) {
    double v = ir::roundToType(values[i], dtype_);
    switch (dtype_) {
    case ir::ScalarType::F64: std::memcpy(p + 8 * i, &v, 8); break;
    case ir::ScalarType::F32: {
      float f = static_cast<float>(v);
      std::memcpy(p + 4 * i, &f, 4);
      break;
    }
    case ir::ScalarType::F16: {
      uint16_t b = halfBits(v);
      std::memcpy(p + 2 * i, &b, 2);
      break;
    }
    case ir::ScalarType::BF16: {
      uint16_t b = bf16Bits(v);
      std::memcpy(p + 2 * i, &b, 2);
      break;
    }
    case ir::ScalarType::I64: {
      auto x = static_cast<int64_t>(v);
      std::memcpy(p + 8 * i, &x, 8);
      break;
    }
    case ir::ScalarType::I32: {
      auto x = static_cast<int32_t>(v);
      std::memcpy(p + 4 * i, &x, 4);
      break;
    }
    case ir::ScalarType::I8:
    case ir::ScalarType::Bool: p[i] = static_cast<unsigned char>(static_cast<int8_t>(v)); break;
    }
  }
}

void TensorBuffer::fillNaN() {
  if (ir::isFloat(dtype_)) {
    store(std::vector<double>(count_, NAN));
    return;
  }
  std::memset(data(), 0x5A, bytes());
}

std::vector<double> TensorBuffer::load() const {
  std::vector<double> out(count_);
  const unsigned char *p = base_ + kGuard;
  for (size_t i = 0; i < count_; ++i) {
    switch (dtype_) {
    case ir::ScalarType::F64: std::memcpy(&out[i], p + 8 * i, 8); break;
    case ir::ScalarType::F32: {
      float f;
      std::memcpy(&f, p + 4 * i, 4);
      out[i] = f;
      break;
    }
    case ir::ScalarType::F16:
    case ir::ScalarType::BF16: {
      uint16_t b;
      std::memcpy(&b, p + 2 * i, 2);
      out[i] = dtype_ == ir::ScalarType::F16 ? halfValue(b) : bf16Value(b);
      break;
    }
    case ir::ScalarType::I64: {
      int64_t x;
      std::memcpy(&x, p + 8 * i, 8);
      out[i] = static_cast<double>(x);
      break;
    }
    case ir::ScalarType::I32: {
      int32_t x;
      std::memcpy(&x, p + 4 * i, 4);
      out[i] = x;
      break;
    }
    case ir::ScalarType::I8: out[i] = static_cast<int8_t>(p[i]); break;
    case ir::ScalarType::Bool: out[i] = p[i]; break;
    }
  }
  return out;
}

bool TensorBuffer::guardsIntact() const {
  for (size_t i = 0; i < kGuard; ++i)
    if (base_[i] != 0xA5 || base_[kGuard + bytes() + i] != 0xA5) return false;
  return true;
}

bool isCudaTarget(const std::vector<std::string> &tkcFlags) {
  for (const std::string &f : tkcFlags)
    if (f.rfind("--target=cuda", 0) == 0) return true;
  return false;
}

int callExport(void *fn, const ir::Op &op, std::map<std::string, TensorBuffer *> &buffers,
               const ir::InterpArgs &args) {
  TensorAddresses tensors;
  for (auto &[name, b] : buffers) tensors[name] = b ? b->data() : nullptr;
  return callExport(fn, op, tensors, args);
}

int callExport(void *fn, const ir::Op &op, const TensorAddresses &tensors, const ir::InterpArgs &args,
               bool cudaStream) {
  std::array<int64_t, 16> ints{};
  std::array<double, 8> sse{};
  size_t ni = 0, ns = 0;
  auto pushInt = [&](int64_t v) {
    if (ni == ints.size()) throw std::invalid_argument("callExport: more than 16 integer-class arguments");
    ints[ni++] = v;
  };
  auto pushTensor = [&](const std::string &name) {
    auto it = tensors.find(name);
    if (it == tensors.end()) throw std::invalid_argument("callExport: no buffer for " + name);
    pushInt(reinterpret_cast<int64_t>(it->second));
  };
  for (const ir::Param &p : op.inputs) {
    if (!p.isScalar()) {
      pushTensor(p.name);
      continue;
    }
    double v = args.scalars.at(p.name);
    if (p.type == ir::ScalarType::F16 || p.type == ir::ScalarType::BF16) {
      pushInt(halfSlot(v, p.type));
      continue;
    }
    if (!ir::isFloat(p.type)) {
      pushInt(static_cast<int64_t>(ir::roundToType(v, p.type)));
      continue;
    }
    if (ns == sse.size()) throw std::invalid_argument("callExport: more than 8 float arguments");
    sse[ns++] = scalarSlot(v, p.type);
  }
  for (const ir::TensorPtr &t : op.outputs) pushTensor(t->name);
  for (const std::string &s : op.symbols) pushInt(args.symbols.at(s));
  if (cudaStream) pushInt(0); // the default stream

  using Trampoline = int (*)(int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                             int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, double, double,
                             double, double, double, double, double, double);
  auto f = reinterpret_cast<Trampoline>(fn);
  return f(ints[0], ints[1], ints[2], ints[3], ints[4], ints[5], ints[6], ints[7], ints[8], ints[9], ints[10],
           ints[11], ints[12], ints[13], ints[14], ints[15], sse[0], sse[1], sse[2], sse[3], sse[4], sse[5], sse[6],
           sse[7]);
}

} // namespace tk::e2e
