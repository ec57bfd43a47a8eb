#!/usr/bin/env bash
# bench/cli.sh [BEFORE] — the command line as a whole process, with hyperfine: `bootdeck --help`, and
# `bootdeck render` of a 3-master + 5-worker cluster with ECDSA-P256 keys (the default) and with
# RSA-2048 keys (bootkube's); peak RSS of each with GNU time. With BEFORE (a checkout of an earlier
# version) the same commands run there too. Then the same-machine stand-in for bootkube's render (bench/bootkube-keys: its
# RSA work in Go, 8 keys as bootkube v0.14 made them, and 20 as Bootdeck makes them: one per certificate). With BOOTKUBE naming a
# bootkube v0.14.0 binary built beside the project (docs/benchmarks.md says how one was), its render of
# the same three masters runs side by side with Bootdeck's, in one hyperfine run. Heavy: run it under
# `flock /tmp/bootdeck-heavy.lock`. Needs hyperfine and Go.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
before="${1:-}"
runs="${RUNS:-15}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export PATH="$PATH:/usr/local/go/bin"

# The cluster: the example definition with 8 hosts (3 masters, 5 workers), as cluster.yaml (ECDSA-P256,
# the default) and rsa.yaml (spec.pki.encryptionAlgorithm: RSA-2048).
cat > "$work/mk.mts" <<TS
import { writeFileSync } from "node:fs";
import { validateClusterDefinition } from "$here/lib/cluster/definition";
import { exampleDefinition } from "$here/lib/cluster/example";
import { toClusterYaml } from "$here/lib/cluster/yaml";
for (const [file, algorithm] of [["cluster.yaml", "ECDSA-P256"], ["rsa.yaml", "RSA-2048"]] as const) {
  const def = exampleDefinition({ name: "bench35", hosts: 8 });
  def.spec.pki = { encryptionAlgorithm: algorithm };
  const v = validateClusterDefinition(def);
  if (!v.ok) throw new Error("invalid example");
  writeFileSync("$work/" + file, toClusterYaml(v.definition));
}
TS
node --import "$here/node_modules/tsx/dist/loader.mjs" "$work/mk.mts"
"$here/bin/bootdeck" --help >/dev/null # builds the bundle first if a source is newer

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), Node $(node --version), $(go version | cut -d' ' -f3)"
help=("$here/bin/bootdeck --help")
render=("$here/bin/bootdeck render --config $work/cluster.yaml --asset-dir $work/out")
if [ -n "$before" ]; then
  help+=("$before/bin/bootdeck --help")
  render+=("$before/bin/bootdeck render --config $work/cluster.yaml --asset-dir $work/out")
fi
hyperfine -N --warmup 3 --runs "$((runs * 2))" "${help[@]}"
hyperfine --warmup 1 --runs "$runs" --prepare "rm -rf $work/out" "${render[@]}"
# The same cluster with RSA-2048 keys, one per certificate (OpenSSL's generator, in the thread pool).
rsa_render="$here/bin/bootdeck render --config $work/rsa.yaml --asset-dir $work/out"
hyperfine --warmup 1 --runs "$runs" --prepare "rm -rf $work/out" "$rsa_render"

(cd "$here/bench/bootkube-keys" && go build -o "$work/bootkube-keys" .)
hyperfine --warmup 1 --runs "$runs" --prepare "rm -rf $work/bk" "$work/bootkube-keys -dir $work/bk" "$work/bootkube-keys -keys 20 -dir $work/bk"

# bootkube's flags for the cluster's three masters (the example's addresses; its etcd on each).
masters="192.0.2.11 192.0.2.12 192.0.2.13"
bootkube_render="${BOOTKUBE:-} render --asset-dir $work/bkr --api-servers=https://192.0.2.11:6443 --api-server-alt-names=$(printf 'IP=%s,' $masters | sed 's/,$//') --etcd-servers=$(printf 'https://%s:2379,' $masters | sed 's/,$//')"
if [ -n "${BOOTKUBE:-}" ]; then
  "$BOOTKUBE" version
  hyperfine --warmup 1 --runs "$runs" --prepare "rm -rf $work/out $work/bkr" "${render[0]}" "$rsa_render" "$bootkube_render"
fi

peak() { rm -rf "$work/out" "$work/bk" "$work/bkr"; /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1; }
echo "peak RSS (KiB): --help $(peak "$here/bin/bootdeck" --help); render ECDSA-P256 $(peak "$here/bin/bootdeck" render --config "$work/cluster.yaml" --asset-dir "$work/out"); RSA-2048 $(peak "$here/bin/bootdeck" render --config "$work/rsa.yaml" --asset-dir "$work/out")"
if [ -n "$before" ]; then
  echo "peak RSS before (KiB): --help $(peak "$before/bin/bootdeck" --help); render $(peak "$before/bin/bootdeck" render --config "$work/cluster.yaml" --asset-dir "$work/out")"
fi
echo "peak RSS bootkube stand-in (KiB): 8 keys $(peak "$work/bootkube-keys" -dir "$work/bk"); 20 keys $(peak "$work/bootkube-keys" -keys 20 -dir "$work/bk")"
if [ -n "${BOOTKUBE:-}" ]; then
  # shellcheck disable=SC2086 # the flags are words
  echo "peak RSS bootkube (KiB): render $(peak $bootkube_render)"
fi
