#!/usr/bin/env bash
# Installs tests/npm/package.json's packages into DEST/node_modules (the
# fixture tk_npm_install). Does nothing when they are there already at the
# pinned versions; leaves DEST/unavailable with the reason when npm or the
# registry is missing, so that the tests needing them skip with that reason.
#   install.sh DEST
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEST="$1"
mkdir -p "$DEST"
rm -f "$DEST/unavailable"
if cmp -s "$HERE/package.json" "$DEST/package.json" && [ -f "$DEST/node_modules/.package-lock.json" ]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "npm is not installed (Debian package nodejs)" > "$DEST/unavailable"
  cat "$DEST/unavailable"; exit 0
fi
cp "$HERE/package.json" "$DEST/package.json"
if ! (cd "$DEST" && npm install --no-audit --no-fund --loglevel=error >"$DEST/npm.log" 2>&1); then
  echo "npm install failed (is the npm registry reachable?): see $DEST/npm.log" > "$DEST/unavailable"
  rm -f "$DEST/package.json"
  cat "$DEST/unavailable"; exit 0
fi
