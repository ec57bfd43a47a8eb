#!/usr/bin/env bash
# Try Bootdeck without hardware: installs what is missing, builds, starts a lab of 3 masters and
# 3 workers on this machine, loads a cluster definition that points at it, and serves the dashboard.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "try: the local lab creates network namespaces and needs root; run this as root" >&2; exit 1; }
export NEXT_TELEMETRY_DISABLED=1
# The lab builds upstream Kubernetes with Go (docs/lab-cluster.md).
export PATH="/usr/local/go/bin:$PATH"
port="${PORT:-3000}"

bash scripts/system-packages.sh
[ -d node_modules ] || npm ci --no-audit --no-fund
# The dashboard is built again only when a source changed since the last build.
if [ -f .next/BUILD_ID ] && [ -z "$(find app components lib public proxy.ts next.config.js postcss.config.mjs package-lock.json -newer .next/BUILD_ID -type f -print -quit 2>/dev/null)" ]; then
  echo "try: the dashboard's build is current"
else
  echo "try: building the dashboard…"
  npx next build >/tmp/bootdeck-build.log 2>&1 || { tail -40 /tmp/bootdeck-build.log; exit 1; }
fi
# lab up reuses a lab whose hosts answer and rebuilds one whose hosts are dead (after a restart of the
# machine); the first run builds a Debian base image and the lab's components (docs/lab-cluster.md).
echo "try: starting the lab \"dev\" (3 masters, 3 workers)…"
bin/bootdeck lab up --masters 3 --workers 3 --name dev
bin/bootdeck setup
mkdir -p data
node --conditions=react-server --import ./node_modules/tsx/dist/loader.mjs lab/write-cluster-yaml.ts dev > data/lab-dev.cluster.yaml
# The saved cluster "lab-dev" belongs to the lab it was imported for: a lab built anew has new hosts
# (new SSH host keys, nothing installed), so the old cluster, its runs and its pinned keys are deleted
# and the definition imported fresh. A reused lab keeps the cluster and its history.
lab_created="$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).createdAt' "${BOOTDECK_LAB_RUN:-/run/bootdeck-lab}/dev/state.json")"
if [ "$(cat data/lab-dev.lab-created 2>/dev/null)" != "$lab_created" ]; then
  echo "try: the lab was built at ${lab_created}; the cluster \"lab-dev\" of an earlier lab (if any) is deleted from the database"
  bin/bootdeck cluster delete lab-dev --yes --if-exists || {
    echo "try: see the runs of lab-dev with: bin/bootdeck run list --cluster lab-dev (end a stuck one with bin/bootdeck run release RUN), then run this again" >&2
    exit 1
  }
fi
bin/bootdeck import data/lab-dev.cluster.yaml --replace
echo "$lab_created" > data/lab-dev.lab-created
cat <<MSG

Bootdeck is starting at http://localhost:${port}
Sign in as "admin" with the password that setup printed when it created that user (on this
script's first run; or the one in BOOTDECK_ADMIN_PASSWORD then). Forgot it: bin/bootdeck user passwd admin
The cluster "lab-dev" points at the lab's hosts (bin/bootdeck lab status --name dev).
Stop with Ctrl-C; remove the lab with: bin/bootdeck lab down --name dev

MSG
exec node server.js -p "$port"
