// The C header for a tkc object (`--emit=header`): one prototype per export
// in the ABI of docs/abi.md, an include guard, extern "C" guards and the
// TK_STATUS_* codes (each under #ifndef so several headers combine).
#pragma once
#include "ir/Module.h"

#include <string>
#include <vector>

namespace tk {

// C spelling of a .tk scalar type as passed and stored (f16/bf16: uint16_t,
// bool: uint8_t).
std::string cTypeName(ir::ScalarType t);

// Header text declaring every export in `exports`, guarded by `guard`
// (a valid C identifier chosen by the caller, e.g. TK_MATMUL_H). With
// `cuda`, the prototypes are those of cuda host objects: tensors are device
// pointers and a trailing `void *stream` follows (docs/abi.md), and the
// launcher's status codes are defined too.
std::string emitCHeader(const std::vector<ir::Export> &exports, const std::string &guard, bool cuda = false);

} // namespace tk
