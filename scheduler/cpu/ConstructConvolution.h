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
// row stay in L1 while every filter panel passes over them: 16 KiB of f32
// at 64; kc = 128 measured the same as 64, docs/performance.md).
struct ConvolutionTiles {
  int64_t mr = 6, nr = 64, kc = 64;
  int64_t lanes = 16; // of one vector register
  int64_t cores = 1;  // the machine's: fewer pixel tasks split the filters (construct::HardwareDesc::units)
};
ConvolutionTiles chooseConvolutionTiles(const TargetDesc &target, int elemBytes);

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
//   if (stride == 1 && dilation == 1) {
//     if (R == 1 && S == 1 && pad == 0) { FLAT } else { TILES(Img with them = 1) }
//   } else { PACKED }
// (no `if` where the op fixes the values: a constant unit stride, a 1x1
// window) with TILES =
//   for (b.., xb) in spatial(B.., cdiv(OW, nr)) on cores {
//     for cb in 0..max(1, cdiv(C, kc)) { for fb in 0..cdiv(F, mr) {
//       if (cb == 0) { O[fb's filters, tile] = 0 } PANEL(cb) } } }
//   PANEL(cb) = for window vars (r, s) { for c in 0..min(kc, C - cb*kc) {
//     for (fr, xx) in repeat(mr, nr) { O[.., fb*mr + fr, .., xb*nr + xx] += Img * Fp[fb, k.., fr] } } }
// (c is the innermost reduction variable that is not a window variable,
// blocked by kc; without one there is no cb loop) and FLAT the same tiles
// over nr consecutive pixels p = pb*nr + xx of each image, for ops whose
// image's last two indices become the output's (y, x) once the window
// variables are 0 (extents 1) and the integer scalars there are 1
// (multiplying an index variable) or 0 (added), and whose image and output
// rows then have the same length and count (tested at run time unless
// those values prove it):
//   for (b.., pb) in spatial(B.., cdiv(OH*OW, nr)) on cores {
//     for cb in 0..max(1, cdiv(C, kc)) { for fb { if (cb == 0) { O[.., fb's filters, pixels] = 0 } PANEL(cb) } } }
//   PANEL(cb) = for c in 0..min(kc, C - cb*kc) { for (fr, xx) in repeat(mr, nr) {
//     O[.., fb*mr + fr, p / OW, p % OW] += Img[.., cb*kc + c, p / W, p % W] * Fp[fb, 0.., cb*kc + c, fr] } }
// (each panel zeroed right before the nest that first accumulates into
// it: the x86 backend runs that register tile once from zero and stores
// or adds its sums as cb says, tileStart in backends/x86/MatchContraction.h)
// a matmul over each image's pixel row, full 16-lane vectors but for the
// last tile (ir/FlatIndex.h: the pair [p / W, p % W] is the one index p).
// PACKED serves any stride and dilation over the same flat pixels, reading
// the image through a local kc x nr panel that each task fills per channel
// block and window step (im2col one panel at a time, padding as zeros):
//   for (b.., pb) in spatial(B.., cdiv(OH*OW, nr)) on cores {
//     for fb { O[.., fb's filters, pixels] = 0 }
//     for cb { for window vars (r, s) {
//       for c in 0..min(kc, C - cb*kc) { for xx in repeat(nr) { P[c, xx] = Img[.., cb*kc + c, pixel p's window element] } }
//       for fb { for c { for (fr, xx) in repeat(mr, nr) { O[.., fb*mr + fr, p / OW, p % OW] += P[c, xx] * Fp[fb, r, s, cb*kc + c, fr] } } } } } }
// (the default schedule instead where there is no channel loop or no
// output row index besides f). Where the last window variable's extent
// times the channels fits one panel (S * C <= kc: an RGB stem's 7 x 3) and
// the channel is the one reduction variable after the window, the strided
// PACKED has a second version whose panel rows are k = s*C + c, copied per
// r, so the register tile sums S*C rows between loading and storing its
// accumulators (instead of C), reading Fp[fb, r, k / C, k % C, fr]. At unit stride PACKED replaces TILES where
// TILES' 64-lane rows waste more lanes past OW than the copies cost (a
// run-time test), and FLAT and PACKED with fewer tasks than tiles.cores
// get a version whose tasks also split the filter blocks into one group
// per core.
// The unit-stride version is the nest MatchContraction recognises (several
// reduction loops); the image's padding guards ignore the innermost
// (channel) loop, so they become lane masks computed once per window step.
ir::KernelPtr constructConvolution(const ir::OpPtr &op, const ConvolutionTiles &tiles);

} // namespace tk
