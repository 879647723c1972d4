#!/usr/bin/env bash
# End-to-end tests in a real VS Code: installs what is missing (Debian chromium, code-server 4.100.3 into
# ~/.cache/nano-coder-e2e), builds and packages the .vsix, then runs
#   1. the .vsix smoke test (node-llama-cpp loads from the package and generates),
#   2. the VS Code API integration tests (mocha inside code-server's extension host),
#   3. the Playwright UI tests in Chromium against the installed .vsix (screenshots: test/e2e/.screenshots/ui/).
# Every suite runs even if an earlier one failed; the exit status says whether all passed.
# usage: scripts/e2e/run.sh        (npm run test:e2e)
set -uo pipefail
cd "$(dirname "$0")/../.."
failed=0
step() {
  local name=$1; shift
  local s=$SECONDS
  "$@"; local rc=$?
  echo "== e2e $name: $((SECONDS - s))s$([ $rc -ne 0 ] && echo " (FAILED, exit $rc)")"
  [ $rc -eq 0 ] || failed=1
  return $rc
}
total=$SECONDS
cs_line=$(mktemp)
step install bash -c "scripts/e2e/install.sh > '$cs_line'" || { echo "e2e: install failed"; exit 1; }
export CODE_SERVER=$(tail -1 "$cs_line"); rm -f "$cs_line"
mkdir -p out/e2e
VSIX=out/e2e/nano-coder.vsix
step package node scripts/package-vsix.mjs --out "$VSIX" || { echo "e2e: packaging failed"; exit 1; }
step vsix-smoke node --import tsx scripts/e2e/vsix-smoke.ts "$VSIX"
step ext-tests node --import tsx scripts/e2e/ext-tests.ts
step ui-tests node --import tsx scripts/e2e/ui-tests.ts --vsix "$VSIX"
echo "== e2e total: $((SECONDS - total))s"
[ $failed -eq 0 ] && echo "e2e: all suites passed" || echo "e2e: some suites FAILED"
exit $failed
