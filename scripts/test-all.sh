#!/usr/bin/env bash
# `npm test`: typecheck, lint, knip (no unused files, exports or dependencies), unit tests (vitest)
# and browser e2e tests (Playwright with Debian's Chromium), all against a real OS keyring on a
# private D-Bus session. Ends with one line counted from the runners' own JSON reports:
# `tests: N passed, M failed[, K skipped]`; a failed check (typecheck, lint, knip) fails the run.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -z "${SILAS_KEYRING_READY:-}" ]; then
  exec scripts/with-keyring.sh "$0" "$@"
fi

reports="$(mktemp -d /tmp/silas-test-reports.XXXXXX)"
status=0
step() {
  local name="$1"; shift
  echo "==> $name"
  if ! "$@"; then
    echo "==> $name FAILED"
    status=1
  fi
}

step "typecheck" npm run --silent typecheck
step "lint" npm run --silent lint
step "unused files, exports and dependencies (knip)" npm run --silent knip -- --no-progress
step "unit tests (vitest)" npx vitest run --reporter=default --reporter=json --outputFile.json="$reports/vitest.json"
step "build cockpit" npm run --silent build:cockpit
PLAYWRIGHT_JSON_OUTPUT_NAME="$reports/playwright.json" step "e2e tests (playwright)" npx playwright test --reporter=list,json

node scripts/count-tests.js "$reports/vitest.json" "$reports/playwright.json" || status=1
rm -rf "$reports"
exit $status
