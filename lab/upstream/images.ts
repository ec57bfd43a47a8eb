// The container images a lab cluster pulls, built from the lab's Go-built upstream binaries (plus the
// few Debian programs upstream's images carry, such as iptables for kube-proxy and flannel), named as
// upstream publishes them, and pushed to the lab's registry under the product's mirror rule. Test bed
// only.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { capabilitiesFor, imagesFor } from "../../lib/assets/capabilities";
import { baseImageKeys } from "../base-image";
import { CACHE_DIR } from "../config";
import { ensureComponent, type BuiltComponent, type Log } from "./build";
import { agnhostComponent, componentsForCluster, componentKey, type Component } from "./components";
import { labToolPath } from "./tools";

type Entry = { dest: string; src?: string; mode?: number; symlink?: string; dir?: boolean };
type ImageSpec = { ref: string; layers: Entry[][]; entrypoint?: string[]; cmd?: string[]; env?: string[] };

export const IMAGES_DIR = path.join(CACHE_DIR, "images");
const PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Debian 12 is usrmerged: these are symlinks in every image that carries Debian programs. */
const USRMERGE: Entry[] = [
  { dest: "/bin", symlink: "usr/bin" },
  { dest: "/sbin", symlink: "usr/sbin" },
  { dest: "/lib", symlink: "usr/lib" },
  { dest: "/lib64", symlink: "usr/lib64" },
];

/**
 * Programs from the lab's Debian root with the shared libraries they load (ldd in the root), files
 * copied under their canonical /usr paths so the image works with the usrmerge symlinks.
 */
function debianLayer(root: string, programs: string[], extraFiles: string[] = []): Entry[] {
  const files = new Set<string>(extraFiles);
  for (const prog of programs) {
    files.add(prog);
    const r = spawnSync("chroot", [root, "ldd", prog], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`ldd ${prog} in ${root}: ${r.stderr.trim()}`);
    for (const m of r.stdout.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)) if (m[1]) files.add(m[1]);
  }
  const entries = new Map<string, Entry>();
  for (const f of files) {
    const canonical = f.replace(/^\/(lib64|lib|bin|sbin)\//, "/usr/$1/");
    const real = fs.realpathSync(path.join(root, f));
    entries.set(canonical, { dest: canonical, src: real });
  }
  return [...USRMERGE, ...entries.values()];
}

function iptablesLayer(root: string): Entry[] {
  const xtables = "/usr/lib/x86_64-linux-gnu/xtables";
  const modules = fs.readdirSync(path.join(root, xtables)).map((f) => `${xtables}/${f}`);
  const names = ["iptables", "iptables-save", "iptables-restore", "ip6tables", "ip6tables-save", "ip6tables-restore", "iptables-nft", "iptables-nft-save", "iptables-nft-restore", "ip6tables-nft", "ip6tables-nft-save", "ip6tables-nft-restore"];
  return [
    ...debianLayer(root, ["/usr/sbin/xtables-nft-multi", ...modules], ["/etc/protocols", "/etc/ethertypes"].filter((f) => fs.existsSync(path.join(root, f)))),
    ...names.map((n) => ({ dest: `/usr/sbin/${n}`, symlink: "xtables-nft-multi" })),
  ];
}

/** sh and the coreutils the init containers and `kubectl exec` tests use. */
function toolboxLayer(root: string): Entry[] {
  const tools = ["cp", "cat", "ls", "mkdir", "rm", "sleep", "env", "hostname"];
  return [...debianLayer(root, ["/usr/bin/dash", ...tools.map((t) => `/usr/bin/${t}`)]), { dest: "/usr/bin/sh", symlink: "dash" }, { dest: "/tmp", dir: true }];
}

const bin = (c: BuiltComponent, name: string): string => {
  const b = c.binaries[name];
  if (!b) throw new Error(`${c.id} ${c.version} has no ${name}`);
  return b.path;
};

/** Every image a lab cluster of this Kubernetes version pulls, by its upstream name. */
export async function clusterImageSpecs(kubernetesVersion: string, log: Log): Promise<{ key: string; specs: ImageSpec[] }> {
  const built = new Map<string, BuiltComponent>();
  const comps: Component[] = componentsForCluster(kubernetesVersion);
  for (const c of comps) built.set(c.id, await ensureComponent(c, log));
  const get = (id: string) => {
    const b = built.get(id);
    if (!b) throw new Error(`component ${id} was not built`);
    return b;
  };
  const root = baseImageKeys().debootstrapDir;
  if (!fs.existsSync(root)) throw new Error(`the lab's Debian root ${root} is missing: run \`bootdeck lab up\` once to build it`);
  const images = imagesFor(capabilitiesFor(kubernetesVersion));
  const k8s = get("kubernetes");
  const iptables = iptablesLayer(root);
  const toolbox = toolboxLayer(root);
  const local = (c: BuiltComponent, names: string[], dir = "/usr/local/bin") => names.map((n) => ({ dest: `${dir}/${n}`, src: bin(c, n), mode: 0o755 }));
  const component = (ref: string, name: string, extra: Entry[][] = []): ImageSpec => ({
    ref,
    layers: [...extra, local(k8s, [name])],
    entrypoint: [`/usr/local/bin/${name}`],
    env: [PATH_ENV],
  });
  const agnhost = get("agnhost");
  const specs: ImageSpec[] = [
    component(images.apiserver, "kube-apiserver"),
    component(images.controllerManager, "kube-controller-manager"),
    component(images.scheduler, "kube-scheduler"),
    component(images.proxy, "kube-proxy", [iptables]),
    { ref: images.etcd, layers: [local(get("etcd"), ["etcd", "etcdctl", "etcdutl"]), [{ dest: "/var/lib/etcd", dir: true }, { dest: "/tmp", dir: true }]], cmd: ["/usr/local/bin/etcd"], env: [PATH_ENV] },
    { ref: images.coredns, layers: [[{ dest: "/coredns", src: bin(get("coredns"), "coredns"), mode: 0o755 }]], entrypoint: ["/coredns"] },
    { ref: need(images.pause), layers: [[{ dest: "/pause", src: bin(get("pause"), "pause"), mode: 0o755 }]], entrypoint: ["/pause"] },
    {
      ref: images.flannel,
      layers: [iptables, local(get("flannel"), ["flanneld", "install-conf"], "/opt/bin")],
      entrypoint: ["/opt/bin/flanneld"],
      env: [PATH_ENV],
    },
    { ref: need(images.flannelCni), layers: [toolbox, [{ dest: "/flannel", src: bin(get("flannel-cni"), "flannel"), mode: 0o755 }]], env: [PATH_ENV] },
    { ref: agnhostImage(), layers: [toolbox, [{ dest: "/agnhost", src: bin(agnhost, "agnhost"), mode: 0o755 }]], entrypoint: ["/agnhost"], env: [PATH_ENV] },
  ];
  const key = createHash("sha256").update(JSON.stringify(specs)).update(comps.map(componentKey).join(",")).digest("hex").slice(0, 12);
  return { key, specs };
}

/** agnhost, Kubernetes' test server, as upstream tags it (its version is in the Kubernetes module). */
export function agnhostImage(): string {
  const version = fs.readFileSync(path.join(goModuleDir(`k8s.io/kubernetes@${agnhostComponent().version}`), "test/images/agnhost/VERSION"), "utf8").trim();
  return `registry.k8s.io/e2e-test-images/agnhost:${version}`;
}

function need(ref: string | undefined): string {
  if (!ref) throw new Error("this Kubernetes version has no such image");
  return ref;
}

export function goModuleDir(moduleAtVersion: string): string {
  const r = spawnSync("go", ["mod", "download", "-json", moduleAtVersion], { encoding: "utf8", cwd: CACHE_DIR, env: { ...process.env, GOFLAGS: "-mod=mod" } });
  if (r.status !== 0) throw new Error(`go mod download ${moduleAtVersion}: ${(r.stderr || r.stdout).trim()}`);
  return (JSON.parse(r.stdout) as { Dir: string }).Dir;
}

/** Builds the cluster's images into an OCI layout (cached by content); returns its directory. */
export async function ensureClusterImages(kubernetesVersion: string, log: Log): Promise<string> {
  const { key, specs } = await clusterImageSpecs(kubernetesVersion, log);
  const out = path.join(IMAGES_DIR, `${kubernetesVersion}-${key}`);
  if (fs.existsSync(path.join(out, "index.json"))) return out;
  const started = Date.now();
  fs.mkdirSync(IMAGES_DIR, { recursive: true });
  const tmp = `${out}.partial`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const specFile = path.join(IMAGES_DIR, `${kubernetesVersion}-${key}.json`);
  fs.writeFileSync(specFile, JSON.stringify({ out: tmp, images: specs }, null, 2));
  const tool = await labToolPath(log);
  const r = spawnSync(tool, ["build", specFile], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`building the lab images failed: ${(r.stderr || r.stdout).trim()}`);
  fs.renameSync(tmp, out);
  log(`built ${specs.length} images for ${kubernetesVersion} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return out;
}

/** Pushes a layout's images to the lab registry (only what it lacks). */
export async function pushImages(layoutDir: string, registry: string, caFile: string, auth: { username: string; password: string }, log: Log): Promise<void> {
  const tool = await labToolPath(log);
  const r = spawnSync(tool, ["push", layoutDir, registry, caFile], { encoding: "utf8", env: { ...process.env, REGISTRY_USER: auth.username, REGISTRY_PASSWORD: auth.password } });
  if (r.status !== 0) throw new Error(`pushing the lab images to ${registry} failed: ${(r.stderr || r.stdout).trim()}`);
  const pushed = r.stdout.split("\n").filter((l) => l.startsWith("pushed")).length;
  const present = r.stdout.split("\n").filter((l) => l.startsWith("present")).length;
  log(`registry ${registry}: ${pushed} images pushed, ${present} already there`);
}
