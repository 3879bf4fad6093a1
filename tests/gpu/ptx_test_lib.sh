# Sourced by the PTX structure tests: a scratch directory removed on exit
# and the checks they share. FILE is a PTX (or any text) file, RE an ERE.
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
has() { grep -qE -- "$2" "$1" || fail "$1 lacks /$2/"; }           # has FILE RE
count() { grep -cE -- "$2" "$1"; }                                  # count FILE RE
expect() { [ "$(count "$1" "$2")" -eq "$3" ] || fail "$1: expected $3 x /$2/, got $(count "$1" "$2")"; } # expect FILE RE N
# entry FILE NAME: the body of kernel NAME in its own file; prints its path.
entry() { awk "/\\.entry $2\\(/,/^}/" "$1" > "$WORK/$2.ptx"; [ -s "$WORK/$2.ptx" ] || fail "no entry $2"; echo "$WORK/$2.ptx"; }
