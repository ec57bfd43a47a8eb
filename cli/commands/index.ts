// The registry of subcommands: a line of help and how to load each. A command's module (and what it
// imports: the database client, SSH, the Kubernetes client …) is loaded only when that command runs, so
// `bootdeck --help` and the light commands start fast. Add a command by writing cli/commands/<name>.ts
// and listing it here.
import type { Command } from "./command";

export type CommandEntry = { summary: string; load: () => Promise<Command> };

export const commands: Record<string, CommandEntry> = {
  apply: { summary: "save a cluster.yaml, plan its bootstrap, and run it here with progress lines", load: async () => (await import("./apply")).apply },
  export: { summary: "print a saved cluster as cluster.yaml (never with secrets)", load: async () => (await import("./export")).exportCommand },
  images: { summary: "list every container image a cluster needs (to fill an image mirror)", load: async () => (await import("./images")).images },
  import: { summary: "save a cluster.yaml into the dashboard's database (secrets from the files/variables it names)", load: async () => (await import("./import")).importCommand },
  setup: { summary: "create the data directory and master key, migrate the database, create the first admin", load: async () => (await import("./setup")).setup },
  validate: { summary: "check a cluster.yaml and print every problem with its field path", load: async () => (await import("./validate")).validate },
  worker: { summary: "run the engine without the dashboard (for deployments with BOOTDECK_ENGINE=off)", load: async () => (await import("./worker")).worker },
  lab: { summary: "test hosts on this machine running real Kubernetes: up, down, status, binaries, reboot, and fault injection", load: async () => (await import("./lab")).lab },
  render: { summary: "render a cluster's certificates, kubeconfigs, manifests and kubelet units into a directory", load: async () => (await import("./render")).render },
  user: { summary: "manage dashboard accounts: list, add, passwd, disable, enable, delete", load: async () => (await import("./user")).user },
  "rotate-master-key": { summary: "re-encrypt every stored secret under a new master key", load: async () => (await import("./rotate-master-key")).rotateMasterKeyCommand },
  run: { summary: "list runs in progress; release a stuck run, cancel or retry one", load: async () => (await import("./run")).run },
  cluster: { summary: "delete a saved cluster from the database (its hosts are not touched)", load: async () => (await import("./cluster")).cluster },
  host: { summary: "re-pin a host's SSH key after a reinstall (shows the old and the new fingerprint first)", load: async () => (await import("./host")).host },
  nodes: { summary: "add hosts to a running cluster, or remove them (etcd membership, drain, reset)", load: async () => (await import("./day2")).nodes },
  upgrade: { summary: "roll a cluster to another Kubernetes version (control plane first, kubelets in batches)", load: async () => (await import("./day2")).upgrade },
  backup: { summary: "etcd snapshots: take one now, list, schedule, download", load: async () => (await import("./backup")).backup },
  restore: { summary: "restore a cluster's etcd from a stored backup, then bring its control plane back", load: async () => (await import("./recovery")).restore },
  recover: { summary: "bring a control plane that did not come back up again from etcd's current state", load: async () => (await import("./recovery")).recover },
  "rotate-certs": { summary: "issue every leaf certificate again (same CAs and keys) and roll them out, the API kept up", load: async () => (await import("./recovery")).rotateCerts },
  "rotate-encryption-key": { summary: "a new key for Secrets at rest: added, written with, every Secret stored again, the old key dropped", load: async () => (await import("./recovery")).rotateEncryptionKey },
  certs: { summary: "certificate expiry: the asset set's, or read live from the hosts (--live)", load: async () => (await import("./recovery")).certs },
};
