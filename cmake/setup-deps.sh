#!/usr/bin/env bash
# Installs the Debian 12 packages tk needs to build and test, if missing.
# Quiet and does nothing when everything is installed (checked with dpkg-query).
#
#   cmake/setup-deps.sh            # required packages
#   cmake/setup-deps.sh --extras   # + optional tools (afl++ for fuzzing, PyTorch for tk_ops_bench)
#   cmake/setup-deps.sh --check    # only report what is missing (exit 1 if any)
set -euo pipefail

PKGS=(
  antlr4                # ANTLR 4 tool: generates the parser from grammar/Tk.g4
  libantlr4-runtime-dev # ANTLR 4 C++ runtime linked by tk_parser
  llvm-19-dev           # LLVM 19: x86 code generation (backends/x86)
  libzstd-dev           # needed to link libLLVM-19
  libfmt-dev            # fmt: text formatting of diagnostics, records, names and bench tables
  doctest-dev           # unit test framework (tests/unit)
  libisl-dev            # isl: exact integer-set checks of task-mapping coverage and conflicts
  ninja-build cmake g++ make # build tools
  libdnnl-dev           # oneDNN: reference library for bench/ and tests
  libopenblas-dev       # OpenBLAS: reference library for bench/ and tests
  nlohmann-json3-dev    # nlohmann/json: the cost model's JSON Lines records (docs/records.md)
  nodejs                # Node.js + npm: the browser and editor tests' tools (tests/npm)
  chromium              # headless browser the `tkc explain` report is tested in (tests/explain)
)
EXTRAS=(afl++ python3-torch) # python3-torch: the PyTorch eager column of tk_ops_bench

check_only=0
for arg in "$@"; do
  case "$arg" in
    --extras) PKGS+=("${EXTRAS[@]}") ;;
    --check) check_only=1 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "setup-deps: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${PKGS[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
  [ "$status" = "install ok installed" ] || missing+=("$p")
done

[ "${#missing[@]}" -eq 0 ] && exit 0

if [ "$check_only" = 1 ]; then
  echo "setup-deps: missing: ${missing[*]}"
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "setup-deps: need root or sudo to install: ${missing[*]}" >&2
  exit 1
fi

echo "setup-deps: installing ${missing[*]}"
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
