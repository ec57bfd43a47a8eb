// Each lab host gets a cgroup of its own in every hierarchy this machine has, and a cgroup namespace
// rooted there (lab.ts starts the host's init inside it). The host's containerd and kubelet then see
// /sys/fs/cgroup as a machine of their own does and manage their own /kubepods, and a lab's
// containers are accounted and killed with their host. Test bed only.
import fs from "node:fs";
import path from "node:path";

export type Hierarchy = {
  /** Where this machine mounts it, e.g. /sys/fs/cgroup/memory. */
  mountPoint: string;
  /** The cgroup this process is in, relative to the mount ("/" or "/some/slice"). */
  own: string;
  version: 1 | 2;
  /** v1 controllers (or name=…) it carries; empty for v2. */
  controllers: string[];
};

const V1_OPTIONS_IGNORED = new Set(["rw", "ro", "relatime", "noatime", "nosuid", "nodev", "noexec", "clone_children", "xattr", "nsdelegate", "memory_recursiveprot"]);

/** The cgroup hierarchies mounted in this (the root) mount namespace. */
export function hierarchies(): Hierarchy[] {
  const own = new Map<string, string>();
  for (const line of fs.readFileSync("/proc/self/cgroup", "utf8").split("\n").filter(Boolean)) {
    const [, ctrls = "", p = "/"] = line.split(":");
    own.set(ctrls, p);
  }
  const out: Hierarchy[] = [];
  for (const line of fs.readFileSync("/proc/self/mountinfo", "utf8").split("\n").filter(Boolean)) {
    const [pre, post] = line.split(" - ");
    const [fstype, , superOpts = ""] = (post ?? "").split(" ");
    const mountPoint = (pre ?? "").split(" ")[4] ?? "";
    if (fstype === "cgroup2") out.push({ mountPoint, own: own.get("") ?? "/", version: 2, controllers: [] });
    if (fstype === "cgroup") {
      const controllers = superOpts.split(",").filter((o) => !V1_OPTIONS_IGNORED.has(o) && o !== "none");
      const key = [...own.keys()].find((k) => k !== "" && sameSet(k.split(","), controllers));
      out.push({ mountPoint, own: key === undefined ? "/" : (own.get(key) ?? "/"), version: 1, controllers });
    }
  }
  return out;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

/**
 * The host's cgroup in a hierarchy. v1: below this process's own cgroup, so the lab stays inside
 * whatever limits the machine put on us. v2: below the root, because v2 forbids enabling controllers
 * for children of a cgroup that has processes (ours has), and the root is exempt.
 */
export function hostCgroupDir(h: Hierarchy, lab: string, host: string): string {
  return path.join(h.mountPoint, h.version === 1 ? h.own : "/", "bootdeck-lab", lab, host);
}

export function labCgroupDirs(lab: string): string[] {
  return hierarchies().map((h) => path.dirname(hostCgroupDir(h, lab, "x")));
}

/** Creates the host's cgroups; returns the cgroup.procs files its init must be moved into. */
export function createHostCgroups(lab: string, host: string): string[] {
  const procs: string[] = [];
  for (const h of hierarchies()) {
    const dir = hostCgroupDir(h, lab, host);
    const base = path.join(h.mountPoint, h.version === 1 ? h.own : "/");
    let cur = base;
    if (h.version === 2) enableV2Controllers(base);
    for (const part of path.relative(base, dir).split(path.sep)) {
      const parent = cur;
      cur = path.join(cur, part);
      if (!fs.existsSync(cur)) fs.mkdirSync(cur);
      // A new v1 cpuset starts with no CPUs and no memory nodes: it inherits its parent's.
      if (h.controllers.includes("cpuset"))
        for (const f of ["cpuset.cpus", "cpuset.mems"]) if (!fs.readFileSync(path.join(cur, f), "utf8").trim()) fs.writeFileSync(path.join(cur, f), fs.readFileSync(path.join(parent, f)));
      if (h.version === 2 && cur !== dir) enableV2Controllers(cur);
    }
    procs.push(path.join(dir, "cgroup.procs"));
  }
  return procs;
}

function enableV2Controllers(dir: string): void {
  const available = fs.readFileSync(path.join(dir, "cgroup.controllers"), "utf8").trim().split(/\s+/).filter(Boolean);
  if (available.length) fs.writeFileSync(path.join(dir, "cgroup.subtree_control"), available.map((c) => `+${c}`).join(" "));
}

/** Removes a lab's cgroups, deepest first (the kubelet's pod cgroups below them included). */
export function removeLabCgroups(lab: string): void {
  for (const dir of labCgroupDirs(lab)) removeTree(dir);
}

/** Removes one host's cgroups (a reboot starts from an empty tree, as the kernel does). */
export function removeHostCgroups(lab: string, host: string): void {
  for (const h of hierarchies()) removeTree(hostCgroupDir(h, lab, host));
}

function removeTree(dir: string): void {
  if (!fs.existsSync(dir)) return;
  const all: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(d, e.name));
    all.push(d);
  };
  walk(dir);
  for (const d of all) {
    try {
      fs.rmdirSync(d);
    } catch {
      /* a process still inside; the caller killed them, so this is a straggler exiting */
    }
  }
}
