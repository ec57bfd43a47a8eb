// The container images a lab cluster pulls, built from the lab's Go-built upstream binaries (plus the
// few Debian programs upstream's images carry, such as iptables for kube-proxy and flannel), named as
// upstream publishes them, and pushed to the lab's registry under the product's mirror rule. Test bed
// only.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { capabilitiesFor, imagesFor } from "../../lib/assets/capabilities";
import { baseImageKeys, ensureTestImageRoot } from "../base-image";
import { CACHE_DIR } from "../config";
import { ensureComponent, type BuiltComponent, type Log } from "./build";
import { ensureBusybox, type BusyboxBuild } from "./busybox";
import { agnhostComponent, componentsForCluster, componentKey, sampleApiserverComponent, type Component } from "./components";
import { labToolPath } from "./tools";

type Entry = { dest: string; src?: string; mode?: number; symlink?: string; dir?: boolean };
type ImageSpec = { ref: string; layers: Entry[][]; entrypoint?: string[]; cmd?: string[]; env?: string[]; user?: string };

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
  const agnhost = agnhostComponent();
  const agnhostModule = goModuleDir(`k8s.io/kubernetes@${agnhost.version}`);
  const agnhostSpec: ImageSpec = {
    ref: agnhostImage(agnhostModule),
    layers: agnhostLayers(await ensureTestImageRoot(TEST_IMAGE_PACKAGES, log), await ensureBusybox(log), path.join(agnhostModule, "test/images"), bin(get(agnhost.id), "agnhost")),
    entrypoint: ["/agnhost"],
    cmd: ["pause"],
    env: [PATH_ENV],
  };
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
    // The conformance suite's recipe (below): the suite of the newest profile pulls this very tag.
    agnhostSpec,
  ];
  const key = createHash("sha256").update(JSON.stringify(specs)).update(comps.map(componentKey).join(",")).digest("hex").slice(0, 12);
  return { key, specs };
}

/** agnhost, Kubernetes' test server, as upstream tags it (its version is in the Kubernetes module). */
export function agnhostImage(kubernetesModuleDir = goModuleDir(`k8s.io/kubernetes@${agnhostComponent().version}`)): string {
  const version = fs.readFileSync(path.join(kubernetesModuleDir, "test/images/agnhost/VERSION"), "utf8").trim();
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
  return ensureImageLayout(`${kubernetesVersion}-${key}`, specs, `${kubernetesVersion}`, log);
}

/** What the conformance images take from Debian 13 (each image below says which of its programs). */
const TEST_IMAGE_PACKAGES = ["curl", "netcat-openbsd", "bind9-dnsutils", "iproute2", "iperf", "netbase"];

/** The images test/utils/image names (by its constant: Agnhost, BusyBox …), as the suite of a version pulls them. */
function e2eImageRefs(kubernetesModuleDir: string): Map<string, string> {
  const manifest = fs.readFileSync(path.join(kubernetesModuleDir, "test/utils/image/manifest.go"), "utf8");
  const registries = new Map([...manifest.matchAll(/^\s*(\w+Registry):\s+"([^"]+)",/gm)].map((m) => [m[1]!, m[2]!]));
  const refs = new Map<string, string>();
  for (const m of manifest.matchAll(/configs\[(\w+)\] = Config\{list\.(\w+), "([^"]+)", "([^"]+)"\}/g)) {
    const registry = registries.get(m[2]!);
    if (registry) refs.set(m[1]!, `${registry}/${m[3]}:${m[4]}`);
  }
  return refs;
}

/** Files an image needs that no package holds (/etc/passwd, /etc/group): written once into the image cache. */
function generatedFile(name: string, content: string): string {
  const file = path.join(IMAGES_DIR, "files", createHash("sha256").update(content).digest("hex").slice(0, 12), name);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  return file;
}

/**
 * busybox and its applets as symlinks to it in /bin (here /usr/bin), as busybox's own image installs
 * them (specs run /bin/sysctl); `shadowed` are paths a later layer brings. The official image's build
 * (busybox.ts), with the libraries it loads from its Debian 13 root.
 */
function busyboxLayer(bb: BusyboxBuild, shadowed: ReadonlySet<string> = new Set()): Entry[] {
  const r = spawnSync("chroot", [bb.root, bb.binary, "--list-full"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`busybox --list-full in ${bb.root}: ${r.stderr.trim()}`);
  const applets = r.stdout
    .split("\n")
    .filter(Boolean)
    .map((a) => `/usr/bin/${path.basename(a)}`)
    .filter((a) => a !== "/usr/bin/busybox" && !shadowed.has(a));
  const libraries = debianLayer(bb.root, [bb.binary]).filter((e) => e.dest !== bb.binary);
  return [...libraries, { dest: "/usr/bin/busybox", src: path.join(bb.root, bb.binary), mode: 0o755 }, ...applets.map((a) => ({ dest: a, symlink: "/usr/bin/busybox" })), { dest: "/tmp", dir: true }];
}

const users = (extra: { passwd?: string[]; group?: string[] } = {}): Entry[] => [
  { dest: "/etc/passwd", src: generatedFile("passwd", ["root:x:0:0:root:/root:/bin/sh", "nobody:x:65534:65534:nobody:/nonexistent:/bin/false", ...(extra.passwd ?? [])].join("\n") + "\n") },
  { dest: "/etc/group", src: generatedFile("group", ["root:x:0:", "nogroup:x:65534:", ...(extra.group ?? [])].join("\n") + "\n") },
];

/**
 * agnhost as test/images/agnhost builds it, on busybox, with the network tools upstream's Alpine image
 * adds (curl, nc, dig/nslookup/host, ip/ss, iperf, bash, and glibc's getent) from Debian 13 (`root`),
 * porter's certificate, /uploads, the agnhost-2 name and the user and group its Dockerfile defines. One recipe
 * for the lab's clusters and the conformance suite: both push the newest profile's tag, and a node
 * keeps whichever it pulled first.
 */
function agnhostLayers(root: string, bb: BusyboxBuild, testImagesDir: string, agnhostBinary: string): Entry[][] {
  const tools = debianLayer(root, ["/usr/bin/curl", "/usr/bin/nc.openbsd", "/usr/bin/dig", "/usr/bin/nslookup", "/usr/bin/host", "/usr/bin/ip", "/usr/bin/ss", "/usr/bin/iperf", "/usr/bin/bash", "/usr/bin/getent"], ["/etc/services", "/etc/protocols"]);
  const shadowed = new Set([...tools.map((e) => e.dest), "/usr/bin/nc"]);
  return [
    busyboxLayer(bb, shadowed),
    tools,
    [
      { dest: "/usr/bin/nc", symlink: "nc.openbsd" },
      { dest: "/usr/local/bin/iperf", symlink: "/usr/bin/iperf" },
      { dest: "/localhost.crt", src: path.join(testImagesDir, "agnhost/porter/localhost.crt") },
      { dest: "/localhost.key", src: path.join(testImagesDir, "agnhost/porter/localhost.key") },
      { dest: "/uploads", dir: true },
      { dest: "/agnhost", src: agnhostBinary, mode: 0o755 },
      { dest: "/agnhost-2", symlink: "agnhost" },
      ...users({ passwd: ["user-defined-in-image:x:1000:1000::/home/user-defined-in-image:/bin/sh"], group: ["user-defined-in-image:x:1000:", "group-defined-in-image:x:50000:user-defined-in-image"] }),
    ],
  ];
}

/**
 * The images the conformance suite of this version pulls that can be built here, by the recipes in its
 * own module's test/images (tagged as its test/utils/image names them):
 * - agnhost: the suite's agnhost (agnhostLayers);
 * - busybox: the release the tag names (1.37.0), built as the official image is (busybox.ts);
 * - glibc-dns-testing (jessie-dnsutils before 1.36): Debian with dig and glibc's getent (its
 *   Dockerfile: Debian slim + dnsutils);
 * - nautilus and kitten: agnhost serving their pictures (test-webserver);
 * - nonewprivs: nnp setuid on busybox; nonroot: busybox as user 1234;
 * - sample-apiserver: k8s.io/sample-apiserver of the tag's minor and patch, on busybox.
 * What it cannot build (nginx, the previous agnhost, the fake registry's images…) docs/conformance.md names.
 */
export async function ensureConformanceImages(kubernetesVersion: string, conformance: BuiltComponent, log: Log): Promise<{ dir: string; refs: string[] }> {
  const root = await ensureTestImageRoot(TEST_IMAGE_PACKAGES, log);
  const moduleDir = goModuleDir(`k8s.io/kubernetes@${kubernetesVersion}`);
  const refs = e2eImageRefs(moduleDir);
  const ref = (id: string) => {
    const r = refs.get(id);
    if (!r) throw new Error(`test/utils/image of ${kubernetesVersion} names no ${id} image`);
    return r;
  };
  const images = path.join(moduleDir, "test/images");
  const busybox = ref("BusyBox");
  const bb = await ensureBusybox(log);
  if (!busybox.split(":").pop()!.startsWith(`${bb.version}-`)) throw new Error(`the suite pulls ${busybox}; the lab builds busybox ${bb.version}: not the same release`);

  const agnhost = agnhostLayers(root, bb, images, bin(conformance, "agnhost"));
  const webserver = (id: string, name: string): ImageSpec => ({
    ref: ref(id),
    layers: [...agnhost, [{ dest: `/${name}.jpg`, src: path.join(images, `${name}/html/${name}.jpg`) }, { dest: "/data.json", src: path.join(images, `${name}/html/data.json`) }]],
    entrypoint: ["/agnhost"],
    cmd: ["test-webserver"],
    env: [PATH_ENV],
  });
  const busyboxLayers = [busyboxLayer(bb), users()];
  // Its Dockerfile: the binary on Alpine. Here on busybox, as the suite's other images.
  const sampleApiserverRef = ref("APIServer");
  const sampleApiserver = await ensureComponent(sampleApiserverComponent(sampleApiserverRef.split(":").pop()!), log);
  const specs: ImageSpec[] = [
    { ref: ref("Agnhost"), layers: agnhost, entrypoint: ["/agnhost"], cmd: ["pause"], env: [PATH_ENV] },
    { ref: busybox, layers: busyboxLayers, cmd: ["sh"], env: [PATH_ENV] },
    // Named jessie-dnsutils before 1.36 (the same recipe on an older Debian).
    { ref: refs.get("GlibcDnsTesting") ?? ref("JessieDnsutils"), layers: [debianLayer(root, ["/usr/bin/dash", "/usr/bin/bash", "/usr/bin/dig", "/usr/bin/getent", "/usr/bin/seq", "/usr/bin/sleep", "/usr/bin/test", "/usr/bin/cat", "/usr/bin/grep", "/usr/bin/ls"], ["/etc/services", "/etc/protocols"]), [{ dest: "/usr/bin/sh", symlink: "dash" }, { dest: "/tmp", dir: true }], users()], env: [PATH_ENV] },
    webserver("Nautilus", "nautilus"),
    webserver("Kitten", "kitten"),
    { ref: ref("Nonewprivs"), layers: [...busyboxLayers, [{ dest: "/usr/local/bin/nnp", src: bin(conformance, "nnp"), mode: 0o4755 }]], cmd: ["nnp"], env: [PATH_ENV] },
    { ref: ref("NonRoot"), layers: busyboxLayers, cmd: ["sh"], env: [PATH_ENV], user: "1234" },
    { ref: sampleApiserverRef, layers: [...busyboxLayers, [{ dest: "/sample-apiserver", src: bin(sampleApiserver, "sample-apiserver"), mode: 0o755 }]], entrypoint: ["/sample-apiserver"], env: [PATH_ENV] },
  ];
  const key = createHash("sha256").update(JSON.stringify(specs)).update([...Object.values(conformance.binaries), ...Object.values(sampleApiserver.binaries)].map((b) => b.sha256).join(",")).digest("hex").slice(0, 12);
  return { dir: await ensureImageLayout(`conformance-${kubernetesVersion}-${key}`, specs, `the conformance suite of ${kubernetesVersion}`, log), refs: specs.map((x) => x.ref) };
}

async function ensureImageLayout(name: string, specs: ImageSpec[], what: string, log: Log): Promise<string> {
  const out = path.join(IMAGES_DIR, name);
  if (fs.existsSync(path.join(out, "index.json"))) return out;
  const started = Date.now();
  fs.mkdirSync(IMAGES_DIR, { recursive: true });
  const tmp = `${out}.partial`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const specFile = path.join(IMAGES_DIR, `${name}.json`);
  fs.writeFileSync(specFile, JSON.stringify({ out: tmp, images: specs }, null, 2));
  const tool = await labToolPath(log);
  const r = spawnSync(tool, ["build", specFile], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`building the lab images failed: ${(r.stderr || r.stdout).trim()}`);
  fs.renameSync(tmp, out);
  log(`built ${specs.length} images for ${what} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
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
