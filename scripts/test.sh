#!/usr/bin/env bash
# Every test suite, cheapest first: types, unit, integration against the lab (root), browser.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
# The lab builds upstream Kubernetes with Go (docs/lab-cluster.md).
export PATH="/usr/local/go/bin:$PATH"
start=$(date +%s)
step() { printf '\n=== %s (%ss)\n' "$1" "$(( $(date +%s) - start ))"; }

step "system packages"; bash scripts/system-packages.sh
[ -d node_modules ] || { step "npm ci"; npm ci --no-audit --no-fund; }
step "type check";       npm run -s typecheck
step "unit tests";       npx vitest run --project unit
# The engine (queue, failover, live events), the audit trail, the database layer, sign-in, the backup
# schedule's claims, webhook deliveries and the metrics again, on PostgreSQL; with the engine's tests
# under test/ (secrets-at-rest reads the SQLite file itself).
pg="$(bash scripts/postgres.sh)"
step "engine tests on PostgreSQL"; BOOTDECK_TEST_DATABASE_URL="$pg" npx vitest run --project unit lib/engine lib/audit lib/db lib/auth lib/backups lib/notify lib/metrics \
  test/run-release.test.ts test/engine-off.test.ts test/shutdown-with-viewers.test.ts test/stream-session.test.ts
# Integration against lab hosts (root). The whole bootstrap with its worker processes killed runs on
# PostgreSQL (runs as pg-boss jobs); the crash-point bootstrap and the rest on SQLite. The first builds
# labs of its own: no shared one.
step "integration tests on PostgreSQL (lab hosts; needs root)"; BOOTDECK_TEST_LAB=none BOOTDECK_TEST_DATABASE_URL="$pg" npx vitest run --project integration lib/engine/bootstrap.integration.test.ts
step "integration tests on SQLite (lab hosts; needs root)"; npx vitest run --project integration --exclude lib/engine/bootstrap.integration.test.ts
step "production build"; npx next build >/tmp/bootdeck-build.log 2>&1 || { tail -50 /tmp/bootdeck-build.log; exit 1; }
step "browser tests (Chromium)"; npx playwright test
step "all test suites passed"
