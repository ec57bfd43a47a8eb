#!/usr/bin/env bash
# Every test suite, cheapest first: types, unit, integration against the lab (root), browser. Ends with
# a table of every suite's wall time (also when a suite fails).
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
# Everything printed is kept too, so the end of the run can name the tests that failed (a CI log may
# show only its last lines).
log=$(mktemp /tmp/bootdeck-test.XXXXXX.log)
exec > >(tee "$log") 2>&1
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
  local failed="$current"
  finish_step
  printf '\n%-58s %8s\n' "suite" "wall"
  for i in "${!names[@]}"; do printf '%-58s %5d:%02d\n' "${names[$i]}" $(( secs[i] / 60 )) $(( secs[i] % 60 )); done
  local total=$(( $(date +%s) - start ))
  printf '%-58s %5d:%02d\n' "all" $(( total / 60 )) $(( total % 60 ))
  if [ "$rc" -ne 0 ]; then
    printf '\nFAILED in: %s (exit %s)\n' "${failed:-set-up}" "$rc"
    node scripts/failed-tests.mjs "$log" || true
    printf 'whole output: %s\n' "$log"
  else printf '\nall test suites passed\n'; fi
}
trap table EXIT

step "system packages"; bash scripts/system-packages.sh
[ -d node_modules ] || { step "npm ci"; npm ci --no-audit --no-fund; }
# A new machine builds every profile's upstream components first (docs/benchmarks.md: from half an hour
# to over two hours on 2 cores): said here, at the start, with the one command that warms the cache beforehand.
if ! missing=$(bin/bootdeck lab binaries --all --check 2>&1); then
  printf '
!!! The lab component cache is cold: %s
!!! This run builds them first, which can take this run past 90 minutes on 2 cores.
!!! To warm it before running the tests: sudo bin/bootdeck lab binaries --all
' "$missing"
fi
step "type check";       npm run -s typecheck
step "import cycles";    npm run -s check:imports
# The browser tests need the production build; those that need no lab run in the next step.
step "production build"; npx next build >/tmp/bootdeck-build.log 2>&1 || { tail -50 /tmp/bootdeck-build.log; exit 1; }
# Three suites side by side: the unit tests (SQLite), the engine's on PostgreSQL, and the browser tests
# that need no lab. vitest gives each of its runs one worker on two cores, and most of these tests wait
# (leases, throttles, timeouts, a browser) rather than compute; run one after the other they took
# 7.5 + 5.3 + about 8 minutes. Each one's output is printed whole when all are done, failed ones last.
# On PostgreSQL: the engine (queue, failover, live events), the audit trail, the database layer, sign-in,
# the backup schedule's claims, webhook deliveries and the metrics again, with the engine's tests under
# test/ (secrets-at-rest reads the SQLite file itself).
pg="$(bash scripts/postgres.sh)"
# Of those folders, the test files that open a database (the rest would only repeat on one core what
# the unit run already did).
mapfile -t pg_tests < <(grep -l -e "temp-db" -e "http-helpers" $(find lib/engine lib/audit lib/db lib/auth lib/backups lib/notify lib/metrics -name '*.test.ts' ! -name '*.integration.test.ts' | sort)
  printf '%s\n' test/run-release.test.ts test/engine-off.test.ts test/shutdown-with-viewers.test.ts test/stream-session.test.ts)
# Tests that use no test database of the run run in the PostgreSQL run instead of the unit run, which is
# otherwise the longest of the three: the render's checks (every key algorithm rendered whole and judged
# by openssl: two minutes of CPU) and the command line's (each starts `bootdeck` on a SQLite file of its
# own; 107 s of the unit run's 13 minutes).
moved=(lib/assets/render.test.ts cli/commands/user.test.ts cli/commands/import.test.ts cli/commands/day2.test.ts cli/commands/backup.test.ts)
# Browser tests that start lab hosts run later, beside the lab suites that measure no seconds.
lab_specs=(e2e/bootstrap.spec.ts e2e/check-run.spec.ts)
mapfile -t ui_specs < <(ls e2e/*.spec.ts | grep -v -x -F "$(printf '%s\n' "${lab_specs[@]}")")
# Suites side by side: each writes its output and exit status to files (set -e would end a subshell at
# a failing suite before it could record it); when all are done each output is printed whole, failed
# ones last.
side=$(mktemp -d)
declare -A title=()
side_pids=()
side_run() { { local part=$1; shift; if "$@" >"$side/$part.log" 2>&1; then echo 0; else echo $?; fi >"$side/$part.rc"; } & side_pids+=($!); }
# Waits for the suites started with side_run only: a bare `wait` would also wait for the tee that keeps
# this run's output, which never ends.
side_wait() { wait "${side_pids[@]}"; side_pids=(); }
side_report() {
  local rc=0 ok="" failed="" part
  for part in "$@"; do
    if [ "$(cat "$side/$part.rc" 2>/dev/null || echo missing)" = 0 ]; then ok="$ok $part"; else failed="$failed $part"; rc=1; fi
  done
  for part in $ok $failed; do
    printf '\n--- %s (exit %s)\n' "${title[$part]}" "$(cat "$side/$part.rc" 2>/dev/null || echo unknown)"
    cat "$side/$part.log"
  done
  return $rc
}
title[unit]="unit tests on SQLite"; title[pg]="engine tests on PostgreSQL (and, on SQLite, the render's and the command line's)"; title[ui]="browser tests without a lab (Chromium)"
step "unit tests, the engine on PostgreSQL and the browser tests without a lab, side by side"
side_run unit npx vitest run --project unit "${moved[@]/#/--exclude=}"
side_run pg env BOOTDECK_TEST_DATABASE_URL="$pg" npx vitest run --project unit "${pg_tests[@]}" "${moved[@]}"
side_run ui npx playwright test "${ui_specs[@]}"
side_wait
side_report unit pg ui
# Everything the labs read from the cache (components, the hosts' base image, each version's images):
# seconds when warm; on a new machine this is the long build the warning above announced.
step "lab cache"; bin/bootdeck lab binaries --all | tail -3
# Integration against lab hosts (root), each suite on a lab of its own. One suite checks seconds on a
# loaded machine's API — the bootstrap suite's address failover (at most 10 s, few stalls) and its
# certificate rotation (gaps of at most 2 s) — so it runs alone, last: lab suites beside other heavy
# work on the same two cores (a Go build) saw the API stall past those limits. The others wait for
# deadlines of minutes and run as two streams side by side: day two (members, upgrade, removals) in
# one; the crash-point bootstrap and the bucket restore on its cluster, SSH, power and flags, then the
# browser on lab hosts in the other. Two streams, not more: bootstraps are CPU-bound, and with three streams on two
# cores a bootstrap in the browser outlasted its test's 10 minutes and crash-point restarts took 8 s.
title[day2]="integration tests on SQLite, day two (members, upgrade with a killed engine, removals; needs root)"
title[lab]="integration tests on SQLite (crash points, then the bucket restore on that cluster; SSH, power, flags; needs root), then the browser on lab hosts (Chromium)"
lab_then_browser() {
  local rc=0
  npx vitest run --project integration --exclude lib/engine/bootstrap.integration.test.ts --exclude lib/engine/day2.integration.test.ts || rc=1
  # Its own server port and output folder: the other browser run's are left as they were.
  BOOTDECK_E2E_PORT=3237 npx playwright test --output test-results/e2e-lab "${lab_specs[@]}" || rc=1
  return $rc
}
step "lab suites judged in minutes, two streams side by side: day two; the rest on SQLite, then the browser on lab hosts"
side_run day2 env BOOTDECK_TEST_LAB=none npx vitest run --project integration lib/engine/day2.integration.test.ts
side_run lab lab_then_browser
side_wait
side_report day2 lab
# The whole bootstrap with its worker processes killed, then day two and disaster recovery on that
# cluster, on PostgreSQL (runs as pg-boss jobs).
step "integration tests on PostgreSQL, alone (lab bootstrap, failover, DR, rotation; needs root)"; BOOTDECK_TEST_LAB=none BOOTDECK_TEST_DATABASE_URL="$pg" npx vitest run --project integration lib/engine/bootstrap.integration.test.ts
rm -rf "$side"
finish_step
