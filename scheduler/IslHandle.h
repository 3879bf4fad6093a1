// Owning handles for the isl objects the write analysis uses (isl is a C
// library: every object is freed by hand, and most functions consume their
// arguments). `get()` lends the object, `copy()` hands a new reference to a
// function that takes one (`__isl_take`), `release()` gives ours away. isl
// propagates errors as null objects, so a handle may hold null.
#pragma once
#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/id.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

namespace tk::isl {

template <class T, T *(*Free)(T *), T *(*Copy)(T *)> class Handle {
public:
  Handle() = default;
  explicit Handle(T *p) : p_(p) {}
  Handle(const Handle &o) : p_(o.p_ ? Copy(o.p_) : nullptr) {}
  Handle(Handle &&o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Handle &operator=(Handle o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~Handle() {
    if (p_) Free(p_);
  }
  T *get() const { return p_; }
  T *copy() const { return p_ ? Copy(p_) : nullptr; }
  T *release() { return std::exchange(p_, nullptr); }
  explicit operator bool() const { return p_ != nullptr; }

private:
  T *p_ = nullptr;
};

using Set = Handle<isl_set, isl_set_free, isl_set_copy>;
using Map = Handle<isl_map, isl_map_free, isl_map_copy>;
using PwAff = Handle<isl_pw_aff, isl_pw_aff_free, isl_pw_aff_copy>;
using Point = Handle<isl_point, isl_point_free, isl_point_copy>;
using Space = Handle<isl_space, isl_space_free, isl_space_copy>;
using Val = Handle<isl_val, isl_val_free, isl_val_copy>;

struct CtxFree {
  void operator()(isl_ctx *c) const { isl_ctx_free(c); }
};
using Ctx = std::unique_ptr<isl_ctx, CtxFree>;

// isl's text form of a set or map (empty for null).
inline std::string adopt(char *s) {
  std::string out = s ? s : "";
  free(s);
  return out;
}
inline std::string str(const Set &s) { return s ? adopt(isl_set_to_str(s.get())) : std::string(); }
inline std::string str(const Map &m) { return m ? adopt(isl_map_to_str(m.get())) : std::string(); }

} // namespace tk::isl
