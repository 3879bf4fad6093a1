// The Makefile of a Sunway build: libNAME.a from NAME.host.c and
// NAME.slave.c with sw5cc (SW26010) or swgcc (SW26010-Pro) on a Sunway
// machine, or with TK_EMULATE=1 with tkc's tk-sw5cc and the athread
// emulator on the build host (docs/sunway.md).
#pragma once
#include "backends/sunway/SunwayBackend.h"

#include <string>

namespace tk {

std::string emitMakefile(const std::string &stem, const SunwayTarget &target);

} // namespace tk
