// HostHardware: the description of the CPU tkc runs on, for `--hw=host` (and
// no --hw). Probing the machine is the driver's job: the scheduler only
// parses and uses HardwareDesc values, so what it decides depends on its
// inputs alone.
#pragma once
#include "scheduler/construct/HardwareDesc.h"

#include <string>

namespace tk::driver {

// The CPU this process runs on: caches from sysfs
// (/sys/devices/system/cpu/cpu0/cache/index*/), cores from sysconf, vector
// width from cpuid. Compute and bandwidth figures are estimates from the
// ISA (2 FMA units per core at 3 GHz; 10 GB/s of DRAM bandwidth per core)
// because nothing is measured at compile time. Never fails: a level sysfs
// does not describe gets a typical figure.
construct::HardwareDesc detectHostHardware();

// The host's hardware id for records (costmodel::hardwareId of "host" with
// /proc/cpuinfo's first "model name", "cpu family", the widest vector ISA
// and the online cores), e.g. "host-amd-epyc-f25-avx512-2c". The id of a
// machine, not of a run: the same on every boot of the same VM type. The
// model name alone does not tell machines apart: cloud VMs of Zen 4
// (family 25) and Zen 5 (family 26) both report "AMD EPYC"; the vector ISA
// separates generations that share a family (Zen 3 and Zen 4 are both 25).
std::string hostHardwareId();

} // namespace tk::driver
