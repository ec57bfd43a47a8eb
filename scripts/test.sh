#!/usr/bin/env bash
# Every test suite, cheapest first: types, unit, integration against the lab (root), browser. Ends with
# a table of every suite's wall time (also when a suite fails).
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
# The lab builds upstream Kubernetes with Go (docs/lab-cluster.md).
export PATH="/usr/local/go/bin:$PATH"
start=$(date +%s)
names=() secs=()
current="" since=$start
finish_step() {
  [ -n "$current" ] || return 0
  names+=("$current"); secs+=($(( $(date +%s) - since ))); current=""
}
step() { finish_step; current="$1"; since=$(date +%s); printf '\n=== %s (%ss)\n' "$1" "$(( since - start ))"; }
table() {
  local rc=$?
  local failed="${failed_suite:-$current}"
  finish_step
  printf '\n%-58s %8s\n' "suite" "wall"
  for i in "${!names[@]}"; do printf '%-58s %5d:%02d\n' "${names[$i]}" $(( secs[i] / 60 )) $(( secs[i] % 60 )); done
  local total=$(( $(date +%s) - start ))
  printf '%-58s %5d:%02d\n' "all" $(( total / 60 )) $(( total % 60 ))
  if [ "$rc" -ne 0 ]; then printf '\nFAILED in: %s (exit %s)\n' "${failed:-set-up}" "$rc"; else printf '\nall test suites passed\n'; fi
}
trap table EXIT

step "system packages"; bash scripts/system-packages.sh
[ -d node_modules ] || { step "npm ci"; npm ci --no-audit --no-fund; }
# A new machine builds every profile's upstream components first (docs/benchmarks.md: 30 to 70 minutes
# on 2 cores): said here, at the start, with the one command that warms the cache beforehand.
if ! missing=$(bin/bootdeck lab binaries --all --check 2>&1); then
  printf '
!!! The lab component cache is cold: %s
!!! This run builds them first, which can take this run past 90 minutes on 2 cores.
!!! To warm it before running the tests: sudo bin/bootdeck lab binaries --all
' "$missing"
fi
step "type check";       npm run -s typecheck
step "import cycles";    npm run -s check:imports
step "unit tests";       npx vitest run --project unit
# The engine (queue, failover, live events), the audit trail, the database layer, sign-in, the backup
# schedule's claims, webhook deliveries and the metrics again, on PostgreSQL; with the engine's tests
# under test/ (secrets-at-rest reads the SQLite file itself).
pg="$(bash scripts/postgres.sh)"
step "engine tests on PostgreSQL"; BOOTDECK_TEST_DATABASE_URL="$pg" npx vitest run --project unit lib/engine lib/audit lib/db lib/auth lib/backups lib/notify lib/metrics \
  test/run-release.test.ts test/engine-off.test.ts test/shutdown-with-viewers.test.ts test/stream-session.test.ts
# Everything the labs read from the cache (components, the hosts' base image, each version's images):
# seconds when warm; on a new machine this is the long build the warning above announced.
step "lab cache"; bin/bootdeck lab binaries --all | tail -3
# Integration against lab hosts (root), two suites at once on labs of their own: the whole bootstrap
# with its worker processes killed, then day two and disaster recovery on that cluster, on PostgreSQL
# (runs as pg-boss jobs); the crash-point bootstrap, day two's members and upgrade, the bucket restore
# and the rest on SQLite. Most of a lab suite's time is spent waiting on a cluster, so the two overlap
# well on two cores. Each writes its own log, printed when both are done.
step "integration tests: PostgreSQL and SQLite suites at once (lab hosts; needs root)"
it_logs="$(mktemp -d /tmp/bootdeck-integration.XXXXXX)"
suite_bg() { # NAME LOG COMMAND...: runs the command in the background, then writes "rc seconds" to LOG.done
  local name="$1" log="$2"; shift 2
  ( s=$(date +%s); rc=0; "$@" >"$log" 2>&1 || rc=$?; echo "$rc $(( $(date +%s) - s ))" >"$log.done" ) &
  printf '%s: started (log %s)\n' "$name" "$log"
}
suite_bg "PostgreSQL suite" "$it_logs/postgres.log" env BOOTDECK_TEST_LAB=none BOOTDECK_TEST_DATABASE_URL="$pg" npx vitest run --project integration lib/engine/bootstrap.integration.test.ts
suite_bg "SQLite suites" "$it_logs/sqlite.log" npx vitest run --project integration --exclude lib/engine/bootstrap.integration.test.ts
wait
finish_step
it_failed=""
for s in postgres:"integration tests on PostgreSQL (lab bootstrap, day two, DR)" sqlite:"integration tests on SQLite (crash points, day two, bucket, …)"; do
  key="${s%%:*}"; label="${s#*:}"
  printf '\n===== %s =====\n' "$label"; cat "$it_logs/$key.log"
  read -r rc took <"$it_logs/$key.log.done" || { rc=1; took=0; }
  names+=("  ∥ $label"); secs+=("$took")
  [ "$rc" = 0 ] || it_failed="$it_failed $label (exit $rc);"
done
[ -z "$it_failed" ] || { failed_suite="${it_failed# }"; exit 1; }
step "production build"; npx next build >/tmp/bootdeck-build.log 2>&1 || { tail -50 /tmp/bootdeck-build.log; exit 1; }
step "browser tests (Chromium)"; npx playwright test
finish_step
