// LdmRewrite: the rewriting half of StageThroughLdm (StageThroughLdm.h):
// applies LdmBox's plans to a CPE loop body — allocates the buffers, issues
// the DMA and redirects the accesses.
#pragma once
#include "scheduler/sunway/LdmBox.h"

namespace tk {

// `body` with each placed plan's buffer allocated around its level's body
// (the whole body for level null), the get before, the put after, and the
// tensor's accesses there redirected to the buffer. A double-buffered plan
// allocates two buffers around its level's loop instead: the first
// iteration's box is fetched (async) before the loop; each iteration waits
// for its box, fetches the next one (async) into the other buffer, then
// runs on its own. A shared plan's get is CPE 0's broadcast (`cpe` names
// the CPE loop's variable), ordered by array barriers that every CPE
// passes (see wrap and wrapDouble).
ir::LStmtPtr applyLdmPlans(const ir::LStmtPtr &body, const std::vector<LdmPlan> &plans, const std::string &cpe);

} // namespace tk
