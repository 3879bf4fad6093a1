// ByteDot: the form in which a schedule writes an 8-bit dot product, so
// that a backend with dot-product instructions (x86 AVX512-VNNI's vpdpbusd:
// four u8 x s8 products summed into each 32-bit lane) recognises it and any
// other target still computes it as plain arithmetic:
//   for b in 0..4: T[.., w] += u8(V[.., w, b]) * i32(X[.., b])
// V and X are i8 tensors whose last extent is 4 (a quad of k values per
// element of the lane dimension w), u8(e) = (i32(e) + 256) % 256 reads a
// byte as unsigned 0..255 (ConstructByteContraction.h packs B's bytes
// flipped by 128 so that this is B + 128).
#pragma once
#include "ir/Expr.h"

#include <optional>

namespace tk::ir {

// (i32(byte) + 256) % 256: the i8 `byte` read as an unsigned byte.
Expr unsignedByte(const Expr &byte);

// The two loads of a byte-quad product `prod` = u8(V[..]) * i32(X[..]) in
// either order, V and X i8 tensors whose last extent is the constant 4 and
// whose accesses end in the same index (the quad's byte).
struct ByteDotLoads {
  Expr quads;     // V[.., w, b]: the unsigned operand, one quad per lane
  Expr broadcast; // X[.., b]: the signed operand, one quad for all lanes
};
std::optional<ByteDotLoads> matchByteDot(const Expr &prod);

} // namespace tk::ir
