// `crictl ps -a`, `crictl pods` and `crictl logs ID` for the containers the kubelet stand-in runs
// (read from its state file, /var/lib/kubelet/lab-containers.json).
import fs from "node:fs";
import { age } from "./tables";
import type { ContainerRecord } from "./kubelet";

const STATE = process.env.BOOTDECK_LAB_KUBELET_STATE ?? "/var/lib/kubelet/lab-containers.json";

function load(): ContainerRecord[] {
  try {
    return JSON.parse(fs.readFileSync(STATE, "utf8")) as ContainerRecord[];
  } catch {
    return [];
  }
}

const pad = (s: string, n: number) => (s.length >= n ? `${s} ` : s.padEnd(n));

export async function runCrictl(argv: string[]): Promise<number> {
  // Global options before the command, as the real crictl takes them: the endpoint (ignored) and the deadline (nothing here waits).
  const args = argv.filter((a) => !a.startsWith("--runtime-endpoint") && !a.startsWith("-r=") && !a.startsWith("--timeout="));
  while (args[0] === "--timeout" || args[0] === "-t") args.splice(0, 2);
  const cmd = args[0];
  const all = load();
  const running = (c: ContainerRecord) => c.exitCode === undefined;
  if (cmd === "ps") {
    const showAll = args.includes("-a") || args.includes("--all");
    const quiet = args.includes("-q");
    const rows = all.filter((c) => showAll || running(c));
    if (quiet) {
      for (const c of rows) process.stdout.write(`${c.id.slice(0, 13)}\n`);
      return 0;
    }
    process.stdout.write(`${pad("CONTAINER", 15)}${pad("IMAGE", 45)}${pad("CREATED", 16)}${pad("STATE", 10)}${pad("NAME", 26)}${pad("ATTEMPT", 9)}${pad("POD ID", 15)}POD\n`);
    for (const c of rows)
      process.stdout.write(
        `${pad(c.id.slice(0, 13), 15)}${pad(c.image, 45)}${pad(`${age(c.startedAt)} ago`, 16)}${pad(running(c) ? "Running" : "Exited", 10)}${pad(c.name, 26)}${pad(String(c.attempt), 9)}${pad(c.podUid.slice(0, 13), 15)}${c.podName}\n`,
      );
    return 0;
  }
  if (cmd === "pods") {
    const pods = new Map<string, ContainerRecord>();
    for (const c of all) pods.set(c.podUid, c);
    process.stdout.write(`${pad("POD ID", 15)}${pad("CREATED", 16)}${pad("STATE", 8)}${pad("NAME", 45)}NAMESPACE\n`);
    for (const [uid, c] of pods) process.stdout.write(`${pad(uid.slice(0, 13), 15)}${pad(`${age(c.startedAt)} ago`, 16)}${pad(all.some((x) => x.podUid === uid && running(x)) ? "Ready" : "NotReady", 8)}${pad(c.podName, 45)}${c.podNamespace}\n`);
    return 0;
  }
  if (cmd === "logs") {
    const id = args.filter((a) => !a.startsWith("-")).slice(1)[0] ?? "";
    const tailIdx = args.findIndex((a) => a === "--tail" || a.startsWith("--tail="));
    const tail = tailIdx >= 0 ? Number(args[tailIdx]?.split("=")[1] ?? args[tailIdx + 1]) : -1;
    const matches = all.filter((c) => c.id.startsWith(id));
    if (!id || matches.length !== 1) {
      process.stderr.write(`E "ContainerStatus from runtime service failed" err="rpc error: code = NotFound desc = an error occurred when try to find container \\"${id}\\": not found"\n`);
      return 1;
    }
    const text = fs.existsSync(matches[0]?.logPath ?? "") ? fs.readFileSync(matches[0]?.logPath ?? "", "utf8") : "";
    const lines = text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    process.stdout.write(`${(tail >= 0 ? lines.slice(-tail) : lines).join("\n")}${lines.length ? "\n" : ""}`);
    return 0;
  }
  if (cmd === "rmp" || cmd === "stop" || cmd === "stopp") {
    // As against containerd: the pods outlive a stopped kubelet, and this stops and removes them.
    const flags = args.slice(1).filter((a) => a.startsWith("-")).join("");
    const ids = args.slice(1).filter((a) => !a.startsWith("-"));
    const everything = cmd === "rmp" && /a|--all/.test(flags);
    const chosen = all.filter((c) => everything || ids.some((id) => c.id.startsWith(id) || c.podUid.startsWith(id)));
    for (const c of chosen.filter(running)) {
      for (const target of [-c.pid, c.pid]) {
        try {
          process.kill(target, "SIGKILL");
          break;
        } catch {
          // not a group leader, or already gone
        }
      }
      c.exitCode = 137;
      c.finishedAt = new Date().toISOString();
    }
    const kept = cmd === "rmp" ? all.filter((c) => !chosen.includes(c)) : all;
    if (fs.existsSync(STATE)) fs.writeFileSync(STATE, JSON.stringify(kept, null, 1));
    for (const c of chosen) process.stdout.write(`${cmd === "rmp" ? "Removed" : "Stopped"} ${cmd === "stop" ? "container" : "sandbox"} ${c.id.slice(0, 13)}\n`);
    return 0;
  }
  process.stderr.write(`crictl (bootdeck lab stand-in): supports ps [-a] [-q], pods, logs [--tail N] ID, stop ID, stopp ID, rmp [-a] [-f] [ID]\n`);
  return 1;
}
