#!/usr/bin/env bash
# emit_kernel.sh TKC FILE TARGET: `tkc --emit=kernel` prints the schedules
# tkc chose for FILE's exports as .tk kernels (docs/driver.md); a file that
# imports FILE and holds those kernels must compile to the same code: the
# assembly (CPU), PTX device entries (cuda) or compiled MPE/CPE C sources
# (sunway) of each `<name>_schedule` equal those of `<name>` (the op, or the
# kernel the file wrote) byte for byte once the symbols are renamed.
set -u
TKC=$1 FILE=$2 TARGET=$3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
kind=asm
case $TARGET in cuda*) kind=ptx ;; sunway*) kind=sources ;; esac
"$TKC" "$FILE" --target="$TARGET" --emit=kernel -o "$WORK/k.tk" 2>"$WORK/err" || { cat "$WORK/err"; fail "--emit=kernel"; }
grep -q '^kernel [A-Za-z0-9_]*_schedule implements ' "$WORK/k.tk" || fail "no schedule printed"
{ echo "import \"$FILE\";"; cat "$WORK/k.tk"; } >"$WORK/rt.tk"
renames() { # the schedules' names back to their ops' names, in the files given
  local k
  for k in $(sed -n 's/^kernel \([A-Za-z0-9_]*\)_schedule implements .*/\1/p' "$WORK/k.tk"); do
    sed -i "s/${k}_schedule/${k}/g" "$@"
  done
}
# One text per compile: the assembly or PTX; for sunway, the x86 assembly
# the host C compiler makes of the build's C sources against the athread
# emulator (the code, without the names of local variables, which differ:
# the frontend spells a loop `a.1` that the printed kernel calls `a_1`).
EMU="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../backends/sunway/emulator" && pwd)"
compile() { # compile INPUT OUT
  if [ $kind = sources ]; then
    local stem; stem=$(basename "$1" .tk)
    local dir="$WORK/$stem.dir"
    "$TKC" "$1" --target="$TARGET" -o "$dir/" || return 1
    [ "$stem" = rt ] && renames "$dir"/rt.*
    for f in host.c slave.c; do
      ${CC:-cc} -std=c99 -fwrapv -O2 -S -I"$EMU" -I"$dir" "$dir/$stem.$f" -o - || return 1
    done >"$2"
  else
    "$TKC" "$1" --target="$TARGET" --emit=$kind -o "$2"
  fi
}
compile "$WORK/rt.tk" "$WORK/rt.out" 2>"$WORK/err" || { cat "$WORK/err"; fail "the printed kernels do not compile"; }
compile "$FILE" "$WORK/orig.out" 2>/dev/null || fail "$FILE does not compile"
renames "$WORK/rt.out"
if [ $kind = ptx ]; then
  # A file may also export an op under its own name beside the kernel that
  # implements it (stdlib/gpu/*.tk): compare each printed kernel's device
  # entries (NAME_k0, NAME_k1, ...), which are self-contained in PTX but
  # for the function's position in the module in branch labels ($L__BB2_4).
  entries() { # entries PTX NAME...
    local f=$1; shift
    local n; for n in "$@"; do
      awk -v re="^[.]visible [.]entry ${n}_k[0-9]+[(]" '$0 ~ re {on=1} on {print} on && /^}/ {on=0}' "$f"
    done | sed 's/[$]L__BB[0-9]*_/$L__BB_/g'
  }
  names=$(sed -n 's/^kernel \([A-Za-z0-9_]*\)_schedule implements .*/\1/p' "$WORK/k.tk")
  entries "$WORK/orig.out" $names >"$WORK/orig.entries"
  entries "$WORK/rt.out" $names >"$WORK/rt.entries"
  [ -s "$WORK/orig.entries" ] || fail "no device entry of the printed kernels in $FILE's PTX"
  mv "$WORK/orig.entries" "$WORK/orig.out"
  mv "$WORK/rt.entries" "$WORK/rt.out"
fi
# The file name is the only other difference.
strip() { grep -v '^[[:space:]]*\.file\|^[[:space:]]*\.ident\|source_filename\|ModuleID' "$1"; }
diff <(strip "$WORK/orig.out") <(strip "$WORK/rt.out") >"$WORK/diff" || { head -20 "$WORK/diff"; fail "different code"; }
echo "ok: $(grep -c '^kernel' "$WORK/k.tk") kernels"
