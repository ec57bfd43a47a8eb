// The lab's package proxy: tinyproxy on the lab bridge (GATEWAY:3142), letting bare hosts reach Debian's
// archive — and nothing else — as a site's HTTP proxy lets its servers. A bare host's apt is configured
// to use it (/etc/apt/apt.conf.d/80proxy, written by lab.ts), so Bootdeck's packages phase installs from
// the real archive with apt. Test bed only.
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { MIRROR } from "./config";

export const APT_PROXY_PORT = 3142;
const pidFile = (labDir: string) => path.join(labDir, "apt-proxy.pid");

/** tinyproxy's configuration: listen on the bridge, serve the lab subnet, only the archive's host. */
export function aptProxyConfig(labDir: string, gateway: string, subnet: string): { config: string; filter: string } {
  const archive = new URL(MIRROR).hostname;
  return {
    config: [
      "# bootdeck lab: the hosts' route to Debian's archive (lab/apt-proxy.ts)",
      `Port ${APT_PROXY_PORT}`,
      `Listen ${gateway}`,
      `Allow ${subnet}`,
      "Timeout 600",
      "MaxClients 100",
      "LogLevel Notice",
      `LogFile "${path.join(labDir, "apt-proxy.log")}"`,
      // No CONNECT tunnels (the archive is plain HTTP; apt checks the signatures), and only its host.
      "ConnectPort 0",
      `Filter "${path.join(labDir, "apt-proxy.filter")}"`,
      "FilterDefaultDeny Yes",
      "FilterType ere",
      "",
    ].join("\n"),
    filter: `^${archive.replace(/\./g, "\\.")}$\n`,
  };
}

/** Starts the proxy for a lab (a detached tinyproxy); resolves once it accepts connections. */
export async function startAptProxy(labDir: string, gateway: string, subnet: string): Promise<string> {
  const { config, filter } = aptProxyConfig(labDir, gateway, subnet);
  const configFile = path.join(labDir, "apt-proxy.conf");
  fs.writeFileSync(configFile, config);
  fs.writeFileSync(path.join(labDir, "apt-proxy.filter"), filter);
  const out = fs.openSync(path.join(labDir, "apt-proxy.out"), "a");
  const child = spawn("tinyproxy", ["-d", "-c", configFile], { detached: true, stdio: ["ignore", out, out] });
  child.unref();
  fs.closeSync(out);
  fs.writeFileSync(pidFile(labDir), String(child.pid));
  const deadline = Date.now() + 15_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: gateway, port: APT_PROXY_PORT, timeout: 1_000 }, () => {
        s.destroy();
        resolve(true);
      });
      s.once("error", () => resolve(false));
      s.once("timeout", () => {
        s.destroy();
        resolve(false);
      });
    });
    if (up) return `http://${gateway}:${APT_PROXY_PORT}`;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the lab's apt proxy did not start on ${gateway}:${APT_PROXY_PORT} (see ${path.join(labDir, "apt-proxy.out")})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function stopAptProxy(labDir: string): void {
  const f = pidFile(labDir);
  if (!fs.existsSync(f)) return;
  const pid = Number(fs.readFileSync(f, "utf8"));
  try {
    if (pid > 0 && fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("tinyproxy")) process.kill(pid, "SIGTERM");
  } catch {
    // already gone
  }
}

/** What a bare host's apt is told: the site's proxy. */
export const aptProxyConf = (url: string) => `// The site's HTTP proxy to Debian's archive (the lab's apt proxy)\nAcquire::http::Proxy "${url}";\n`;
