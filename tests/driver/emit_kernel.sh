#!/usr/bin/env bash
# emit_kernel.sh TKC FILE TARGET: `tkc --emit=kernel` prints the schedules
# tkc chose for FILE's exports as .tk kernels (docs/driver.md); a file that
# imports FILE and holds those kernels must compile to the same code: the
# assembly (CPU) or PTX (cuda) of each `<op>_schedule` equals that of `<op>`
# byte for byte once the symbols are renamed.
set -u
TKC=$1 FILE=$2 TARGET=$3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
kind=asm
case $TARGET in cuda*) kind=ptx ;; esac
"$TKC" "$FILE" --target="$TARGET" --emit=kernel -o "$WORK/k.tk" 2>"$WORK/err" || { cat "$WORK/err"; fail "--emit=kernel"; }
grep -q '^kernel [A-Za-z0-9_]*_schedule implements ' "$WORK/k.tk" || fail "no schedule printed"
{ echo "import \"$FILE\";"; cat "$WORK/k.tk"; } >"$WORK/rt.tk"
"$TKC" "$WORK/rt.tk" --target="$TARGET" --emit=$kind -o "$WORK/rt.out" 2>"$WORK/err" ||
  { cat "$WORK/err"; fail "the printed kernels do not compile"; }
"$TKC" "$FILE" --target="$TARGET" --emit=$kind -o "$WORK/orig.out" 2>/dev/null || fail "$FILE does not compile"
for k in $(sed -n 's/^kernel \([A-Za-z0-9_]*\)_schedule implements .*/\1/p' "$WORK/k.tk"); do
  sed -i "s/${k}_schedule/${k}/g" "$WORK/rt.out"
done
# The file name is the only other difference.
strip() { grep -v '^[[:space:]]*\.file\|source_filename\|ModuleID' "$1"; }
diff <(strip "$WORK/orig.out") <(strip "$WORK/rt.out") >"$WORK/diff" || { head -20 "$WORK/diff"; fail "different code"; }
echo "ok: $(grep -c '^kernel' "$WORK/k.tk") kernels"
