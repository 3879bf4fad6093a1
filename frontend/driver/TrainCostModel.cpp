#include "frontend/driver/TrainCostModel.h"

#include "frontend/ResolveImports.h"
#include "frontend/driver/OutputFile.h"
#include "scheduler/costmodel/Training.h"

#include <fmt/format.h>
#include <zstd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

namespace tk::driver {

bool readRecordsFile(const std::string &path, std::string &text, std::string *error) {
  bool zst = path.size() > 4 && path.compare(path.size() - 4, 4, ".zst") == 0;
  if (!zst) {
    if (readSourceFile(path, text)) return true;
    *error = "cannot read records '" + path + "' (no such regular file, or larger than 64 MiB)";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream raw;
  raw << in.rdbuf();
  if (!in) {
    *error = "cannot read records '" + path + "'";
    return false;
  }
  std::string packed = raw.str();
  ZSTD_DStream *ds = ZSTD_createDStream();
  ZSTD_inBuffer input{packed.data(), packed.size(), 0};
  std::string chunk(ZSTD_DStreamOutSize(), '\0');
  size_t ret = 1;
  text.clear();
  while (input.pos < input.size) {
    ZSTD_outBuffer output{chunk.data(), chunk.size(), 0};
    ret = ZSTD_decompressStream(ds, &output, &input);
    if (ZSTD_isError(ret) || text.size() + output.pos > (size_t(1) << 30)) break;
    text.append(chunk.data(), output.pos);
  }
  ZSTD_freeDStream(ds);
  if (ZSTD_isError(ret) || ret != 0) {
    *error = "records '" + path + "' are not a complete zstd stream" +
             (ZSTD_isError(ret) ? std::string(" (") + ZSTD_getErrorName(ret) + ")" : std::string());
    return false;
  }
  return true;
}

std::optional<std::vector<costmodel::Record>> readRecords(const std::vector<std::string> &paths, SourceManager &sm,
                                                          DiagEngine &diags, std::string *error) {
  std::vector<costmodel::Record> records;
  for (const std::string &path : paths) {
    std::string text;
    if (!readRecordsFile(path, text, error)) return std::nullopt;
    auto rs = costmodel::parseRecords(sm.addFile(path, std::move(text)), sm, diags);
    if (!rs) return std::nullopt;
    records.insert(records.end(), rs->begin(), rs->end());
  }
  return records;
}

namespace {

struct Args {
  std::string output;
  std::vector<std::string> inputs;
  costmodel::TrainingOptions train;
  double validation = 0.1;
  int seqLen = costmodel::FeatureLayout{}.seqLen;
};

// Parses `args`; "" or the usage error.
std::string parseArgs(const std::vector<std::string> &args, Args &a) {
  auto number = [](const std::string &v, long lo, long hi, long &out) {
    char *end = nullptr;
    out = std::strtol(v.c_str(), &end, 10);
    return !v.empty() && !*end && out >= lo && out <= hi;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &s = args[i];
    auto value = [&](const char *flag) { return s.substr(std::string(flag).size()); };
    long n = 0;
    if (s == "-o" && i + 1 < args.size()) a.output = args[++i];
    else if (s.rfind("-o", 0) == 0 && s.size() > 2) a.output = s.substr(2);
    else if (s.rfind("--epochs=", 0) == 0 && number(value("--epochs="), 1, 10000, n)) a.train.epochs = int(n);
    else if (s.rfind("--seed=", 0) == 0 && number(value("--seed="), 0, 1L << 62, n)) a.train.seed = uint64_t(n);
    else if (s.rfind("--width=", 0) == 0 && number(value("--width="), 8, 1024, n)) a.train.width = int(n);
    else if (s.rfind("--heads=", 0) == 0 && number(value("--heads="), 1, 64, n)) a.train.heads = int(n);
    else if (s.rfind("--seq=", 0) == 0 && number(value("--seq="), 4, 256, n)) a.seqLen = int(n);
    else if (s.rfind("--lr=", 0) == 0) {
      std::string v = value("--lr="); // `end` points into it
      char *end = nullptr;
      a.train.learningRate = std::strtof(v.c_str(), &end);
      if (*end || !(a.train.learningRate > 0 && a.train.learningRate < 1)) return "invalid value for --lr (in (0, 1))";
    } else if (s == "--loss=lambdarank") a.train.loss = costmodel::Loss::LambdaRank;
    else if (s == "--loss=mse") a.train.loss = costmodel::Loss::Mse;
    else if (s.rfind("--validation=", 0) == 0) {
      std::string v = value("--validation=");
      char *end = nullptr;
      a.validation = std::strtod(v.c_str(), &end);
      if (*end || !(a.validation >= 0 && a.validation < 1)) return "invalid value for --validation (a fraction in [0, 1))";
    } else if (!s.empty() && s[0] == '-') return "unknown or invalid option '" + s + "' for train-cost-model";
    else a.inputs.push_back(s);
  }
  if (a.output.empty()) return "train-cost-model needs -o MODEL.tkcm";
  if (a.inputs.empty()) return "train-cost-model needs at least one records file";
  if (a.train.width % a.train.heads != 0) return "--width must be a multiple of --heads";
  return "";
}

} // namespace

int trainCostModelCommand(const std::vector<std::string> &args, SourceManager &sm, DiagEngine &diags) {
  Args a;
  if (std::string usage = parseArgs(args, a); !usage.empty()) {
    std::cerr << "tkc: error: " << usage << "\n";
    return 2;
  }
  std::string error;
  std::optional<std::vector<costmodel::Record>> read = readRecords(a.inputs, sm, diags, &error);
  if (!read) {
    if (!error.empty()) std::cerr << "tkc: error: " << error << "\n";
    return 1;
  }
  const std::vector<costmodel::Record> &records = *read;
  costmodel::FeatureLayout layout;
  layout.seqLen = a.seqLen;
  std::vector<std::string> heads = costmodel::hardwareIds(records);
  auto isHeld = [&](const costmodel::Record &r) { return costmodel::heldOut(r.task(), a.validation); };
  costmodel::TrainingSet train =
      costmodel::buildTrainingSet(records, layout, heads, [&](const costmodel::Record &r) { return !isHeld(r); });
  costmodel::TrainingSet valid = costmodel::buildTrainingSet(records, layout, heads, isHeld);
  if (train.tasks.empty()) {
    std::cerr << "tkc: error: no records to train on (every task is held out for validation, or the files are empty)\n";
    return 1;
  }
  std::cerr << fmt::format("train-cost-model: {} candidates of {} tasks ({} held out), {} machine(s): {}\n",
                           train.rows(), train.tasks.size(), valid.tasks.size(), heads.size(), fmt::join(heads, ", "));
  costmodel::TlpNetwork net = costmodel::trainCostModel(train, &valid, a.train, [&](const costmodel::EpochReport &r) {
    std::cerr << fmt::format("epoch {}/{}: loss {:.4f}", r.epoch, a.train.epochs, r.loss);
    if (!valid.tasks.empty()) std::cerr << fmt::format(", validation top-1 {:.3f} top-5 {:.3f}", r.top1, r.top5);
    std::cerr << fmt::format(" ({:.1f} s)\n", r.seconds);
  });
  if (!writeOutputFile(a.output, net.serialize(), &error)) {
    std::cerr << "tkc: error: " << error << "\n";
    return 1;
  }
  return 0;
}

} // namespace tk::driver
