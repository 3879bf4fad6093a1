#include "Launch.h"

#include "tk_cuda_emu_device.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>

namespace tk::cuemu {

namespace {

// Resident blocks per SM and what limits them, from the SM's warps,
// registers (the most live at once, allocated per warp in units of 256),
// shared memory and block slots.
void occupancy(const LaunchState &L, uint64_t blocks, tk_cuda_emu_stats *s) {
  const Kernel &k = *L.kernel;
  uint32_t threads = L.block[0] * L.block[1] * L.block[2];
  uint32_t warps = (threads + 31) / 32;
  s->registers_per_thread = std::max<uint32_t>(k.liveRegs, 1);
  s->shared_bytes_per_block = k.dynamicSharedOffset() + L.dynamicShared;
  struct Limit {
    uint32_t blocks;
    const char *name;
  };
  uint32_t regsPerWarp = (s->registers_per_thread * 32 + 255) / 256 * 256;
  Limit limits[] = {
      {static_cast<uint32_t>(spec::kMaxThreadsPerSm / 32) / warps, "warps"},
      {static_cast<uint32_t>(spec::kRegistersPerSm) / std::max<uint32_t>(regsPerWarp * warps, 1), "registers"},
      {s->shared_bytes_per_block ? static_cast<uint32_t>(spec::kSharedPerSm) / s->shared_bytes_per_block : 1u << 30,
       "shared memory"},
      {static_cast<uint32_t>(spec::kMaxBlocksPerSm), "blocks"}};
  Limit best = *std::min_element(std::begin(limits), std::end(limits),
                                 [](const Limit &a, const Limit &b) { return a.blocks < b.blocks; });
  s->blocks_per_sm = best.blocks;
  s->occupancy_limit = best.name;
  double maxWarps = spec::kMaxThreadsPerSm / 32.0;
  s->theoretical_occupancy = best.blocks * warps / maxWarps;
  // A grid too small to fill every SM leaves warps idle on average.
  double perSm = std::min<double>(best.blocks, static_cast<double>(blocks) / spec::kSms);
  s->achieved_occupancy = perSm * warps / maxWarps;
}

} // namespace

int runGrid(LaunchState &L, int hostThreads, tk_cuda_emu_stats *stats) {
  uint64_t blocks = static_cast<uint64_t>(L.grid[0]) * L.grid[1] * L.grid[2];
  std::atomic<uint64_t> next{0};
  int n = static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(std::max(hostThreads, 1)), blocks));
  std::vector<Counters> counters(static_cast<size_t>(std::max(n, 1)));
  auto worker = [&](int id) {
    BlockRunner runner(L);
    for (uint64_t b; !L.failed.load(std::memory_order_relaxed) && (b = next.fetch_add(1)) < blocks;) runner.run(b);
    counters[static_cast<size_t>(id)] = runner.counters;
  };
  if (n <= 1) {
    if (blocks) worker(0);
  } else {
    std::vector<std::thread> pool;
    for (int i = 0; i < n; ++i) pool.emplace_back(worker, i);
    for (std::thread &t : pool) t.join();
  }
  Counters c;
  for (const Counters &x : counters) c.add(x);
  std::memset(stats, 0, sizeof *stats);
  std::snprintf(stats->kernel, sizeof stats->kernel, "%s", L.kernel->name.c_str());
  for (int i = 0; i < 3; ++i) stats->grid[i] = L.grid[i], stats->block[i] = L.block[i];
  stats->thread_instructions = c.threadInstr;
  stats->warp_instructions = c.warpInstr;
  for (int i = 0; i < TK_EMU_KIND_COUNT; ++i) stats->by_kind[i] = c.byKind[i];
  stats->global_load_requests = c.gldReq, stats->global_load_sectors = c.gldSectors, stats->global_load_bytes = c.gldBytes;
  stats->global_store_requests = c.gstReq, stats->global_store_sectors = c.gstSectors, stats->global_store_bytes = c.gstBytes;
  stats->shared_requests = c.shReq, stats->shared_wavefronts = c.shWave, stats->shared_ideal_wavefronts = c.shIdeal;
  stats->shared_max_ways = c.shMaxWays;
  stats->branches = c.branches, stats->divergent_branches = c.divergent;
  occupancy(L, blocks, stats);
  return L.failed.load() ? L.errorCode : 0;
}

namespace {
// tk_cuda_emu_kind's names, as printStats shows them and as record keys
// (kind_<name>, with '/' and '.' spelt '_').
const char *const kKindNames[] = {"int", "float", "global", "shared", "local/param", "control", "sync", "warp", "tensor", "cp.async"};
static_assert(sizeof(kKindNames) / sizeof(kKindNames[0]) == TK_EMU_KIND_COUNT);
} // namespace

std::string statsRecord(const tk_cuda_emu_stats &s) {
  std::string out = fmt::format("kernel={}\tgrid={},{},{}\tblock={},{},{}\tthread_instructions={}\twarp_instructions={}",
                                s.kernel, s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2],
                                s.thread_instructions, s.warp_instructions);
  for (int i = 0; i < TK_EMU_KIND_COUNT; ++i) {
    std::string key = kKindNames[i];
    for (char &c : key)
      if (c == '/' || c == '.') c = '_';
    out += fmt::format("\tkind_{}={}", key, s.by_kind[i]);
  }
  out += fmt::format("\tglobal_load_requests={}\tglobal_load_sectors={}\tglobal_load_bytes={}"
                     "\tglobal_store_requests={}\tglobal_store_sectors={}\tglobal_store_bytes={}"
                     "\tshared_requests={}\tshared_wavefronts={}\tshared_ideal_wavefronts={}\tshared_max_ways={}"
                     "\tbranches={}\tdivergent_branches={}\tregisters_per_thread={}\tshared_bytes_per_block={}"
                     "\tblocks_per_sm={}\toccupancy_limit={}\ttheoretical_occupancy={:.4f}\tachieved_occupancy={:.4f}\n",
                     s.global_load_requests, s.global_load_sectors, s.global_load_bytes, s.global_store_requests,
                     s.global_store_sectors, s.global_store_bytes, s.shared_requests, s.shared_wavefronts,
                     s.shared_ideal_wavefronts, s.shared_max_ways, s.branches, s.divergent_branches,
                     s.registers_per_thread, s.shared_bytes_per_block, s.blocks_per_sm,
                     s.occupancy_limit ? s.occupancy_limit : "", s.theoretical_occupancy, s.achieved_occupancy);
  return out;
}

void printStats(const tk_cuda_emu_stats &s) {
  auto eff = [](uint64_t bytes, uint64_t sectors) { return sectors ? static_cast<double>(bytes) / (32.0 * sectors) : 1.0; };
  std::string byKind;
  for (int i = 0; i < TK_EMU_KIND_COUNT; ++i)
    if (s.by_kind[i]) byKind += fmt::format(" {}={}", kKindNames[i], s.by_kind[i]);
  fmt::print(stderr,
             "tk-cuda-emu: {} grid ({},{},{}) block ({},{},{}): {} thread instructions ({} warp issues;{})\n"
             "  global loads: {} requests, {} sectors, efficiency {:.3f}; stores: {} requests, {} sectors, "
             "efficiency {:.3f}\n"
             "  shared: {} requests, {} wavefronts for {} ideal (worst {}-way); branches {} ({} divergent)\n"
             "  occupancy: {} registers/thread (most live at once), {} B shared/block, {} blocks/SM (limit: {}), theoretical "
             "{:.3f}, achieved {:.3f}\n",
             s.kernel, s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2], s.thread_instructions,
             s.warp_instructions, byKind, s.global_load_requests, s.global_load_sectors,
             eff(s.global_load_bytes, s.global_load_sectors), s.global_store_requests, s.global_store_sectors,
             eff(s.global_store_bytes, s.global_store_sectors), s.shared_requests, s.shared_wavefronts,
             s.shared_ideal_wavefronts, s.shared_max_ways, s.branches, s.divergent_branches, s.registers_per_thread,
             s.shared_bytes_per_block, s.blocks_per_sm, s.occupancy_limit, s.theoretical_occupancy,
             s.achieved_occupancy);
}

} // namespace tk::cuemu
