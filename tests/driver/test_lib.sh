# Sourced by the driver test scripts (driver_cli.sh, build_tool.sh); CASE is
# the case being run.
#   fail MESSAGE...         report the case as failed and exit 1
#   expect_rc WANT CMD...   run CMD (stdout -> out.txt, stderr -> err.txt) and
#                           fail unless it exits WANT
fail() { echo "FAIL($CASE): $*" >&2; exit 1; }
expect_rc() {
  local want=$1; shift
  "$@" >out.txt 2>err.txt
  local rc=$?
  [ "$rc" -eq "$want" ] || { cat err.txt >&2; fail "'$*' exited $rc, expected $want"; }
}
