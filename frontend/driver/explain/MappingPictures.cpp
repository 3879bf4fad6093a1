#include "frontend/driver/explain/MappingPictures.h"

#include "frontend/driver/explain/HtmlText.h"
#include "frontend/driver/explain/ValueAt.h"
#include "ir/IRVisitor.h"
#include "ir/TaskMapping.h"

#include <fmt/format.h>

#include <algorithm>

namespace tk::explain {

using namespace ir;

namespace {

constexpr int64_t kMaxRows = 48, kMaxCols = 64;

// Row-major strides of `dims` taken in `order` (slowest first).
std::vector<int64_t> stridesInOrder(const std::vector<int64_t> &dims, const std::vector<int> &order) {
  std::vector<int64_t> stride(dims.size(), 1);
  int64_t s = 1;
  for (size_t i = order.size(); i-- > 0;) {
    stride[order[i]] = s;
    s *= dims[order[i]];
  }
  return stride;
}

int64_t product(const std::vector<int64_t> &v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

struct Grid {
  std::vector<int64_t> shape; // the task shape
  int64_t rows = 1, cols = 1;
  // Task coordinates of cell (r, c): the leading dims flattened into rows.
  std::vector<int64_t> task(int64_t r, int64_t c) const {
    std::vector<int64_t> t(shape.size(), 0);
    if (shape.empty()) return t;
    t.back() = c;
    for (size_t d = shape.size() - 1; d-- > 0;) {
      t[d] = r % shape[d];
      r /= shape[d];
    }
    return t;
  }
};

Grid gridOf(const std::vector<std::vector<int64_t>> &dims, size_t rank) {
  Grid g;
  g.shape.assign(rank, 1);
  for (const auto &atom : dims)
    for (size_t d = 0; d < rank; ++d) g.shape[d] *= atom[d];
  if (rank > 0) g.cols = g.shape.back();
  for (size_t d = 0; d + 1 < rank; ++d) g.rows *= g.shape[d];
  return g;
}

std::string drawGrid(const TaskMapping &m, const std::vector<std::vector<int64_t>> &dims, const Grid &g,
                     const std::string &workerName) {
  int64_t rows = std::min(g.rows, kMaxRows), cols = std::min(g.cols, kMaxCols);
  int64_t cell = std::clamp<int64_t>(640 / std::max<int64_t>(cols, 1), 8, 28);
  // The extent of one digit of the first atom along the column dimension:
  // thicker lines there show where the outer factor's tiles meet.
  int64_t block = m.atoms.size() > 1 ? g.cols / std::max<int64_t>(dims.front().back(), 1) : 0;
  std::string out = fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" class="grid" width="{}" height="{}" )"
                                R"(viewBox="0 0 {} {}" role="img" data-worker="{}" aria-label="task grid coloured by {}">)",
                                cols * cell + 1, rows * cell + 1, cols * cell + 1, rows * cell + 1, workerName, workerName);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      std::vector<int64_t> t = g.task(r, c);
      std::optional<TaskOwner> o = taskOwner(m, dims, t);
      if (!o) continue;
      std::string coords;
      for (size_t i = 0; i < t.size(); ++i) coords += (i ? "," : "") + std::to_string(t[i]);
      out += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}" data-task="{}" data-worker="{}" )"
                         R"(data-step="{}"><title>task ({}): {} {}, step {}</title></rect>)",
                         c * cell, r * cell, cell, cell, pictureFill(o->worker), coords, o->worker, o->step, coords,
                         workerName, o->worker, o->step);
      if (cell >= 18 && o->worker < 1000)
        out += fmt::format(R"(<text x="{}" y="{}">{}</text>)", c * cell + cell / 2, r * cell + cell * 2 / 3, o->worker);
    }
  if (block > 0 && block < g.cols)
    for (int64_t c = block; c < cols; c += block)
      out += fmt::format(R"(<line class="factor" x1="{0}" y1="0" x2="{0}" y2="{1}"/>)", c * cell, rows * cell);
  int64_t rowBlock = m.atoms.size() > 1 && g.shape.size() == 2 ? g.rows / std::max<int64_t>(dims.front()[0], 1) : 0;
  if (rowBlock > 0 && rowBlock < g.rows)
    for (int64_t r = rowBlock; r < rows; r += rowBlock)
      out += fmt::format(R"(<line class="factor" x1="0" y1="{0}" x2="{1}" y2="{0}"/>)", r * cell, cols * cell);
  return out + "</svg>";
}

class Collector : public MappingVisitor {
public:
  Collector(const Kernel &k, const std::map<std::string, int64_t> &values) : values_(values), at_(values) {
    for (const Hole &h : k.holes)
      if (h.value) holes_.emplace_back(h.id, *h.value);
  }
  std::vector<MappingPicture> pictures;

protected:
  void visitMapFor(const MStmt &s) override {
    if (!s.worker) return MappingVisitor::visitMapFor(s);
    pictures.push_back(picture(s));
    ++depth_;
    MappingVisitor::visitMapFor(s);
    --depth_;
  }

private:
  std::optional<int64_t> evaluate(const Expr &e) const {
    return at_(fillHoles(e, holes_));
  }

  MappingPicture picture(const MStmt &s) const {
    MappingPicture p;
    std::string vars;
    for (size_t i = 0; i < s.vars.size(); ++i) vars += (i ? ", " : "") + s.vars[i];
    std::string worker(workerKindName(*s.worker));
    p.header = fmt::format("for ({}) in {} on {}", vars, printMapping(s.mapping), worker);
    p.loc = s.loc;
    p.depth = depth_;
    std::vector<std::vector<int64_t>> dims;
    for (const MappingAtom &a : s.mapping.atoms) {
      std::vector<int64_t> &d = dims.emplace_back();
      for (const Expr &e : a.dims) {
        std::optional<int64_t> v = evaluate(e);
        if (!v) {
          p.note = fmt::format("not drawn: the extent {} is not known before the kernel runs", printExpr(e));
          return p;
        }
        d.push_back(std::max<int64_t>(*v, 0));
      }
    }
    Grid g = gridOf(dims, s.mapping.rank());
    int64_t workers = 1, steps = 1;
    for (size_t a = 0; a < dims.size(); ++a)
      (s.mapping.atoms[a].kind == MappingAtom::Kind::Spatial ? workers : steps) *= product(dims[a]);
    if (product(g.shape) == 0) {
      p.note = "no tasks at these sizes";
      return p;
    }
    p.note = fmt::format("{} worker{} ({}), {} task{} each", workers, workers == 1 ? "" : "s", worker, steps,
                         steps == 1 ? "" : "s");
    // CPU tasks are not threads: the runtime's pool runs them on the cores it has.
    if (*s.worker == WorkerKind::Cores) p.note += ", run by the runtime's threads on the machine's cores";
    if (g.rows > kMaxRows || g.cols > kMaxCols)
      p.note += fmt::format("; the top-left {} x {} of {} x {} tasks", std::min(g.rows, kMaxRows),
                            std::min(g.cols, kMaxCols), g.rows, g.cols);
    p.svg = drawGrid(s.mapping, dims, g, worker);
    if (*s.worker == WorkerKind::Threads || *s.worker == WorkerKind::Lanes) p.banks = sharedBankAccesses(s, values_);
    return p;
  }

  const std::map<std::string, int64_t> &values_;
  ValueAt at_;
  std::vector<std::pair<int, int64_t>> holes_;
  int depth_ = 0;
};

} // namespace

std::optional<TaskOwner> taskOwner(const TaskMapping &m, const std::vector<std::vector<int64_t>> &dims,
                                   const std::vector<int64_t> &task) {
  size_t rank = m.rank();
  if (task.size() != rank || dims.size() != m.atoms.size()) return std::nullopt;
  // Peel the atoms' digits off the task coordinates, innermost atom first.
  std::vector<int64_t> rest = task;
  std::vector<int64_t> digits(dims.size() * rank); // atom a's digit of dim d at a * rank + d
  for (size_t a = dims.size(); a-- > 0;) {
    for (size_t d = 0; d < rank; ++d) {
      if (dims[a].size() != rank || dims[a][d] <= 0 || rest[d] < 0) return std::nullopt;
      digits[a * rank + d] = rest[d] % dims[a][d];
      rest[d] /= dims[a][d];
    }
  }
  for (int64_t r : rest)
    if (r != 0) return std::nullopt;
  TaskOwner o;
  for (size_t a = 0; a < dims.size(); ++a) {
    std::vector<int64_t> stride = stridesInOrder(dims[a], atomOrder(m.atoms[a]));
    int64_t local = 0;
    for (size_t d = 0; d < rank; ++d) local += digits[a * rank + d] * stride[d];
    if (m.atoms[a].kind == MappingAtom::Kind::Spatial) o.worker = o.worker * product(dims[a]) + local;
    else o.step = o.step * product(dims[a]) + local;
  }
  return o;
}

std::vector<MappingPicture> mappingPictures(const Kernel &k, const std::map<std::string, int64_t> &values) {
  Collector c(k, values);
  c.walkStmt(k.body);
  return std::move(c.pictures);
}

} // namespace tk::explain
