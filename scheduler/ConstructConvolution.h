// ConstructConvolution: a register-blocked CPU kernel for an op without a
// kernel whose statement is a windowed contraction
//   O[b.., f, .., x] = sum(c, r, s) Img[.., x*stride + s*dilation - pad] * Filt[f, c, r, s]
// (stdlib conv2d and anything of that form: roles come from the index
// expressions, not from names). It replaces DefaultSchedule for such ops
// on the CPU (docs/construct.md, "Convolutions").
#pragma once
#include "scheduler/Pipeline.h"

#include <string>

namespace tk {

// mr filters (rows) x nr output columns: the accumulators of one
// EmitRegisterTile block. With 32 vector registers 6 x 4 vectors (24
// accumulators, 4 image vectors, 1 broadcast); with 16, 4 x 3 vectors.
// kc: channels per cache block (kc image rows of nr elements per window
// row stay in L1 while every filter panel passes over them).
struct ConvolutionTiles {
  int64_t mr = 6, nr = 64, kc = 64;
};
ConvolutionTiles chooseConvolutionTiles(int vectorBits, int elemBytes);

// True when `op` has one statement, no intermediates, f32/f64, and the
// statement is a sum of Img * Filt where
//   - x, the innermost output index, appears only in Img's last index, and
//     there together with a reduction variable (the window);
//   - exactly one other output index f appears in Filt, and not in Img;
//   - no other output index appears in Filt;
//   - Img's last index is unit-stride in x once the integer scalar
//     parameters that multiply an index variable there are 1.
// Otherwise false and why (when `reason` is non-null).
bool constructConvolutionApplies(const ir::Op &op, std::string *reason = nullptr);

// Takes a verified op for which constructConvolutionApplies holds; returns
// a synthesized mapping-IR kernel:
//   Fp: global[cdiv(F, mr), K1, .., Kn, mr]    (the filter, packed)
//   for (fb) in spatial(cdiv(F, mr)) on cores { Fp[fb, k.., fr] = Filt[fb*mr + fr, ..] }
//   if (stride == 1 && dilation == 1) { TILES(Img with them = 1) } else { TILES(Img) }
// with TILES =
//   for (b.., xb) in spatial(B.., cdiv(OW, nr)) on cores {
//     O[all filters, tile] = 0
//     for cb in 0..cdiv(C, kc) { for fb in 0..cdiv(F, mr) {
//       for window vars (r, s) { for c in 0..min(kc, C - cb*kc) {
//         for (fr, xx) in repeat(mr, nr) { O[.., fb*mr + fr, .., xb*nr + xx] += Img * Fp[fb, k.., fr] } } } } } }
// (c is the innermost reduction variable that is not a window variable,
// blocked by kc; without one there is no cb loop).
// The unit-stride version is the nest MatchContraction recognises (several
// reduction loops); the image's padding guards ignore the innermost
// (channel) loop, so they become lane masks computed once per window step.
ir::KernelPtr constructConvolution(const ir::OpPtr &op, const ConvolutionTiles &tiles);

} // namespace tk
