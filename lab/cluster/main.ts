// One entry point for every lab stand-in, chosen by its first argument (or by the name it was called
// under): `kube-apiserver`, `kube-controller-manager`, `kube-scheduler`, `kubelet`, `crictl`.
// Run with tsx: `node --import tsx lab/cluster/main.ts kube-apiserver --etcd-servers=… …`.
import path from "node:path";

const COMPONENTS = ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "crictl", "systemctl", "journalctl", "lab-systemd", "virtual-nodes"] as const;

async function main(): Promise<void> {
  let argv = process.argv.slice(2);
  let component = path.basename(process.env.BOOTDECK_LAB_COMPONENT ?? "");
  if (!COMPONENTS.includes(component as never)) {
    component = argv[0] ?? "";
    argv = argv.slice(1);
  }
  // hyperkube style: `hyperkube kubelet …` / `/hyperkube apiserver …`.
  if (component === "hyperkube") {
    component = argv[0] ?? "";
    argv = argv.slice(1);
  }
  if (["apiserver", "controller-manager", "scheduler"].includes(component)) component = `kube-${component}`;
  switch (component) {
    case "kube-apiserver": {
      const { runApiServer } = await import("./apiserver");
      await runApiServer(argv);
      return;
    }
    case "kube-controller-manager": {
      const { runControllerManager } = await import("./controller-manager");
      await runControllerManager(argv);
      return;
    }
    case "kube-scheduler": {
      const { runScheduler } = await import("./scheduler");
      await runScheduler(argv);
      return;
    }
    case "kubelet": {
      const { runKubelet } = await import("./kubelet");
      await runKubelet(argv);
      return;
    }
    case "crictl": {
      const { runCrictl } = await import("./crictl");
      process.exitCode = await runCrictl(argv);
      return;
    }
    case "systemctl": {
      const { runSystemctl } = await import("./systemd");
      process.exitCode = await runSystemctl(argv);
      return;
    }
    case "journalctl": {
      const { runJournalctl } = await import("./systemd");
      process.exitCode = await runJournalctl(argv);
      return;
    }
    case "virtual-nodes": {
      const { runVirtualNodes } = await import("./virtual-nodes");
      await runVirtualNodes(argv);
      return;
    }
    case "lab-systemd": {
      const { runManager } = await import("./systemd");
      await runManager();
      return;
    }
    default:
      process.stderr.write(`usage: main.ts ${COMPONENTS.join("|")} [flags…] (got "${component}")\n`);
      process.exit(2);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
