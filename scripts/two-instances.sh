#!/usr/bin/env bash
# Two Bootdeck instances on one PostgreSQL database, on this machine: two dashboards (ports 3000 and
# 3001, or $PORTS) that run no engine of their own, and two `bootdeck worker` processes that execute
# every run. They share the data directory ($BOOTDECK_DATA_DIR, default data/two-instances): the master
# key and the backup files must be the same for all of them. Start or retry a run on one dashboard,
# watch it on the other; stop a worker (kill its pid, printed below) and the other takes its runs over.
# Needs a production build (npx next build). The database is $DATABASE_URL, else the machine's
# PostgreSQL as scripts/postgres.sh sets it up (needs root). Ctrl-C stops the four processes.
set -euo pipefail
cd "$(dirname "$0")/.."
export DATABASE_URL="${DATABASE_URL:-$(bash scripts/postgres.sh)}"
case "$DATABASE_URL" in
  postgres://* | postgresql://*) ;;
  *) echo "two-instances: DATABASE_URL must be a postgresql:// URL (SQLite serves one instance)" >&2; exit 2 ;;
esac
[ -f .next/BUILD_ID ] || { echo "two-instances: no production build; run npx next build first" >&2; exit 2; }
export BOOTDECK_DATA_DIR="${BOOTDECK_DATA_DIR:-$PWD/data/two-instances}"
read -r -a ports <<<"${PORTS:-3000 3001}"
logs="$BOOTDECK_DATA_DIR/logs"
mkdir -p "$logs"

bin/bootdeck setup # migrates the database, creates the master key file and the first admin (once)

pids=()
stop() {
  trap - EXIT INT TERM
  [ ${#pids[@]} -eq 0 ] || kill -TERM "${pids[@]}" 2>/dev/null || true
  wait || true
}
trap stop EXIT INT TERM

for p in "${ports[@]}"; do
  BOOTDECK_ENGINE=off PORT="$p" node server.js >"$logs/dashboard-$p.log" 2>&1 &
  pids+=("$!")
  echo "dashboard http://localhost:$p (pid $!, log $logs/dashboard-$p.log)"
done
for i in 1 2; do
  bin/bootdeck worker >"$logs/worker-$i.log" 2>&1 &
  pids+=("$!")
  echo "worker $i (pid $!, log $logs/worker-$i.log)"
done
echo "database $(echo "$DATABASE_URL" | sed -E 's#//([^:@/]*):[^@/]*@#//\1:***@#'), data directory $BOOTDECK_DATA_DIR; Ctrl-C stops all four"
# Until Ctrl-C (or SIGTERM): a worker that dies or is killed leaves the other three running.
wait || true
