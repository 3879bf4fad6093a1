#include "ir/BindingScope.h"

#include <algorithm>

namespace tk::ir {

const Binding *BindingScope::lookup(std::string_view name) const {
  for (auto it = vars_.rbegin(); it != vars_.rend(); ++it)
    if (it->name == name) return &*it;
  return nullptr;
}

bool BindingScope::hasTensor(const TensorDecl *t) const {
  return std::any_of(tensors_.begin(), tensors_.end(), [&](const TensorPtr &x) { return x.get() == t; });
}

} // namespace tk::ir
