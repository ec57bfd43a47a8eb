#!/usr/bin/env bash
# Starts the machine's PostgreSQL (Debian's cluster, no systemd needed) and makes sure a `bootdeck`
# role that may create databases exists, with the password `bootdeck`, and a database of the same name.
# Idempotent; needs root. Prints the URL to use: postgresql://bootdeck:bootdeck@127.0.0.1:5432/bootdeck
set -euo pipefail
version=$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1)
[ -n "$version" ] || { echo "postgres: PostgreSQL is not installed (apt-get install -y postgresql)" >&2; exit 1; }
pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main"' | grep -q . || pg_createcluster "$version" main >/dev/null
pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" { print $4 }' | grep -q online || pg_ctlcluster "$version" main start >&2  # its notes (e.g. "Removed stale pid file.") must not join the URL
for _ in $(seq 1 50); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 0.2; done
psql_() { runuser -u postgres -- psql -v ON_ERROR_STOP=1 -qtAX "$@"; }
# A worker in a network namespace (lib/engine/failover.test.ts: a worker whose machine is cut off)
# reaches the server over a veth, so it listens beyond loopback; from there only that /30 may sign in.
hba=$(psql_ -c "SHOW hba_file")
grep -q "^host all bootdeck 10.239.255.0/30 " "$hba" || { echo "host all bootdeck 10.239.255.0/30 scram-sha-256" >>"$hba"; psql_ -c "SELECT pg_reload_conf()" >/dev/null; }
if [ "$(psql_ -c "SHOW listen_addresses")" != "*" ]; then
  psql_ -c "ALTER SYSTEM SET listen_addresses = '*'"
  pg_ctlcluster "$version" main restart >&2
  for _ in $(seq 1 50); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 0.2; done
fi
[ "$(psql_ -c "SELECT 1 FROM pg_roles WHERE rolname = 'bootdeck'")" = 1 ] || psql_ -c "CREATE ROLE bootdeck LOGIN CREATEDB PASSWORD 'bootdeck'"
[ "$(psql_ -c "SELECT 1 FROM pg_database WHERE datname = 'bootdeck'")" = 1 ] || psql_ -c "CREATE DATABASE bootdeck OWNER bootdeck"
echo "postgresql://bootdeck:bootdeck@127.0.0.1:5432/bootdeck"
