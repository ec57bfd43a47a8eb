// For every profile that runs real upstream components, each binary starts with exactly the flags
// Bootdeck renders for it: the control plane's static pods and workloads, etcd, kube-proxy, flannel,
// CoreDNS and the kubelet. A real binary exits on an unknown or removed flag, so this catches them
// before a cluster does (`--version` after the flags: parsed, then nothing started).
import { spawnSync } from "node:child_process";
import YAML from "yaml";
import { describe, expect, it } from "vitest";
import { renderAssets } from "../../lib/assets/render";
import { exampleDefinition } from "../../lib/cluster/example";
import { profileOf } from "../../lib/cluster/versions";
import { ensureComponent } from "./build";
import { corednsComponent, etcdComponent, flannelComponent, kubernetesComponent } from "./components";
import { realVersions } from "./index";

type Container = { name: string; image: string; command?: string[]; args?: string[] };

/** Every container of the rendered objects (pods, and the pod templates of workloads). */
function containers(yamlText: string): Container[] {
  const out: Container[] = [];
  for (const doc of YAML.parseAllDocuments(yamlText)) {
    const o = doc.toJSON() as { kind?: string; spec?: { containers?: Container[]; template?: { spec?: { containers?: Container[]; initContainers?: Container[] } } } };
    if (!o?.kind) continue;
    const spec = o.kind === "Pod" ? o.spec : o.spec?.template?.spec;
    out.push(...(spec?.containers ?? []));
  }
  return out;
}

/** The container's argv with Kubernetes' $(VAR) references given example values. */
const argv = (c: Container) => [...(c.command ?? []), ...(c.args ?? [])].map((a) => a.replace(/\$\((POD_IP|NODE_NAME)\)/g, (_, v: string) => (v === "POD_IP" ? "10.0.0.1" : "node-1")));

function runWithVersion(binary: string, args: string[], versionFlag = "--version"): { code: number; out: string } {
  const r = spawnSync(binary, [...args, versionFlag], { encoding: "utf8", timeout: 60_000 });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

const log = (line: string) => console.log(`[flags] ${line}`);

describe.each(realVersions())("the flags Bootdeck renders for %s", (version) => {
  it(
    "are all accepted by the real binaries",
    async () => {
      const pins = profileOf(version).pins;
      const [k8s, etcd, coredns, flannel] = await Promise.all([
        ensureComponent(kubernetesComponent(version), log),
        ensureComponent(etcdComponent(pins.etcd), log),
        ensureComponent(corednsComponent(pins.coredns), log),
        ensureComponent(flannelComponent(), log),
      ]);
      const def = exampleDefinition();
      def.spec.kubernetes.version = version;
      const assets = await renderAssets(def, { encryptionAlgorithm: "ECDSA-P256" });
      const byComponent = new Map<string, string[][]>();
      for (const a of assets.filter((x) => x.path.endsWith(".yaml") && /^(manifests|bootstrap-manifests|etcd|checkpoint)\//.test(x.path)))
        for (const c of containers(a.content)) {
          const cmd = argv(c);
          const name = cmd[0] ?? "";
          byComponent.set(name, [...(byComponent.get(name) ?? []), cmd.slice(1)]);
        }
      const binaries: Record<string, string | undefined> = {
        "kube-apiserver": k8s.binaries["kube-apiserver"]?.path,
        "kube-controller-manager": k8s.binaries["kube-controller-manager"]?.path,
        "kube-scheduler": k8s.binaries["kube-scheduler"]?.path,
        "kube-proxy": k8s.binaries["kube-proxy"]?.path,
        etcd: etcd.binaries.etcd?.path,
        "/opt/bin/flanneld": flannel.binaries.flanneld?.path,
      };
      const checked: string[] = [];
      for (const [name, variants] of byComponent) {
        const binary = binaries[name];
        if (!binary) continue;
        for (const args of variants) {
          const r = runWithVersion(binary, args);
          expect(r.code, `${name} ${args.join(" ")}\n${r.out}`).toBe(0);
        }
        checked.push(`${name} ×${variants.length}`);
      }
      // CoreDNS takes its flags as args of the image's entrypoint.
      const corednsArgs = containers(assets.find((a) => a.path === "manifests/coredns.yaml")!.content)[0]!.args ?? [];
      const c = runWithVersion(coredns.binaries.coredns!.path, corednsArgs, "-version");
      expect(c.code, c.out).toBe(0);
      expect(c.out).toContain(pins.coredns.replace(/^v/, ""));
      // The kubelet: the unit drop-in's flags and a host's environment file.
      const dropIn = assets.find((a) => a.path === "kubelet/10-bootdeck.conf")!.content;
      const flags = dropIn.split("\n").map((l) => l.trim().replace(/\s*\\$/, "")).filter((l) => l.startsWith("--"));
      const env = assets.find((a) => a.path === "kubelet/hosts/worker-1.env")!.content;
      const extra = (/KUBELET_EXTRA_ARGS="([^"]*)"/.exec(env)?.[1] ?? "").split(" ").filter(Boolean);
      const kubelet = runWithVersion(k8s.binaries.kubelet!.path, [...flags, ...extra]);
      expect(kubelet.code, `kubelet ${[...flags, ...extra].join(" ")}\n${kubelet.out}`).toBe(0);
      expect(kubelet.out).toContain(`Kubernetes ${version}`);
      expect(checked.map((x) => x.split(" ")[0])).toEqual(expect.arrayContaining(["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kube-proxy", "etcd", "/opt/bin/flanneld"]));
      log(`${version}: ${checked.join(", ")}, coredns, kubelet`);
    },
    3 * 60 * 60_000,
  );
});
