// The one oneDNN CPU engine of a benchmark process (bench/Baselines.cpp),
// shared by every primitive tk_bench and tk_ops_bench create.
#pragma once
#include <dnnl.hpp>

namespace tk::bench {

dnnl::engine &onednnEngine();

} // namespace tk::bench
