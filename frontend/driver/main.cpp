// tkc: the .tk compiler. All logic lives in tk_driver (Driver.h).
#include "frontend/driver/Driver.h"

#include <filesystem>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  std::error_code ec;
  std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (exe.empty() && argc > 0) exe = argv[0];
  return tk::driver::runTkc(std::vector<std::string>(argv + 1, argv + argc), exe);
}
