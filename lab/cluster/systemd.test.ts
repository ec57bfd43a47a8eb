// The systemctl/journalctl stand-ins, run as commands against a temporary unit directory.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expandCommand, parseEnvFile, parseUnit } from "./systemd";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "lab-systemd-"));
const env = { ...process.env, BOOTDECK_LAB_UNIT_DIR: path.join(root, "units"), BOOTDECK_LAB_SYSTEMD_RUN: path.join(root, "run"), BOOTDECK_LAB_JOURNAL: path.join(root, "journal") };
fs.mkdirSync(env.BOOTDECK_LAB_UNIT_DIR, { recursive: true });
const main = path.join(__dirname, "main.ts");
const run = (cmd: string, ...args: string[]): Promise<{ code: number; out: string }> =>
  new Promise((resolve) =>
    execFile(process.execPath, ["--import", "tsx", main, cmd, ...args], { env, encoding: "utf8", timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    ),
  );
const unit = (name: string, text: string) => fs.writeFileSync(path.join(env.BOOTDECK_LAB_UNIT_DIR, name), text);
const waitFor = async (fn: () => Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 300));
  }
};

afterAll(() => {
  const pidFile = path.join(env.BOOTDECK_LAB_SYSTEMD_RUN, "manager.pid");
  if (fs.existsSync(pidFile)) {
    try {
      process.kill(Number(fs.readFileSync(pidFile, "utf8")), "SIGTERM");
    } catch {
      /* gone */
    }
  }
  fs.rmSync(root, { recursive: true, force: true });
});

describe("unit parsing", () => {
  it("merges drop-ins, resets ExecStart= and splits $VAR but not ${VAR}", () => {
    const u = parseUnit("kubelet.service", [
      { path: "/u", text: "[Service]\nExecStart=/usr/bin/old\nRestart=always\nRestartSec=10\n" },
      { path: "/u.d/10.conf", text: "[Service]\nEnvironmentFile=-/etc/default/kubelet\nExecStart=\nExecStart=/usr/local/bin/kubelet \\\n  --a=1 \\\n  $KUBELET_EXTRA_ARGS ${ONE}\n" },
    ]);
    expect(u.execStart).toHaveLength(1);
    expect(u.restartSec).toBe(10);
    expect(u.environmentFiles).toEqual([{ path: "/etc/default/kubelet", optional: true }]);
    const env = parseEnvFile('KUBELET_EXTRA_ARGS="--hostname-override=m1 --node-ip=10.0.0.1"\nONE=a b\n');
    expect(expandCommand(u.execStart[0] ?? "", env).argv).toEqual(["/usr/local/bin/kubelet", "--a=1", "--hostname-override=m1", "--node-ip=10.0.0.1", "a b"]);
  });
});

describe("systemctl and journalctl stand-ins", () => {
  it("skips a unit whose ConditionPathExists fails, silently, and Restart= does not retry it", async () => {
    unit("cond.service", `[Unit]\nDescription=Needs a file\nConditionPathExists=${root}/missing\n[Service]\nExecStart=/bin/sleep 100\nRestart=always\nRestartSec=1\n`);
    const start = await run("systemctl", "start", "cond");
    expect(start.code).toBe(0);
    expect(start.out).toBe("");
    expect((await run("systemctl", "is-active", "cond")).out.trim()).toBe("inactive");
    const st = await run("systemctl", "status", "cond");
    expect(st.code).toBe(3);
    expect(st.out).toContain(`ConditionPathExists=${root}/missing was not met`);
    expect((await run("journalctl", "-u", "cond", "--no-pager")).out).toContain("was skipped because of an unmet condition check");
  }, 60_000);

  it("runs ExecStartPre and ExecStart with Environment/EnvironmentFile, restarts with RestartSec, stops", async () => {
    fs.writeFileSync(path.join(root, "env"), 'GREETING="hello from envfile"\n');
    unit("flappy.service", `[Unit]\nDescription=Flappy\n[Service]\nEnvironment=WHO=lab\nEnvironmentFile=${root}/env\nExecStartPre=/bin/mkdir -p ${root}/pre\nExecStart=/bin/sh -c 'echo "$GREETING $WHO"; exit 3'\nRestart=always\nRestartSec=1\n`);
    const en = await run("systemctl", "enable", "--now", "flappy.service");
    expect(en.code).toBe(0);
    expect(en.out).toContain("Created symlink");
    expect(fs.existsSync(path.join(root, "pre"))).toBe(true);
    await waitFor(async () => (await run("journalctl", "-u", "flappy", "--no-pager")).out.includes("restart counter is at 2"));
    const j = await run("journalctl", "-u", "flappy", "-n", "50");
    expect(j.out).toContain("hello from envfile lab");
    expect(j.out).toContain("Main process exited, code=exited, status=3/FAILURE");
    await run("systemctl", "stop", "flappy");
    expect((await run("systemctl", "is-active", "flappy")).code).toBe(3);
    expect((await run("systemctl", "is-enabled", "flappy")).out.trim()).toBe("enabled");
  }, 60_000);

  it("reports a unit that does not exist like systemd does", async () => {
    const r = await run("systemctl", "start", "nope");
    expect(r.code).toBe(5);
    expect(r.out).toContain("Unit nope.service not found.");
  }, 30_000);

  it("prints a unit with its drop-ins (systemctl cat), and fails for one that does not exist", async () => {
    unit("shown.service", "[Service]\nExecStart=/bin/true\n");
    fs.mkdirSync(path.join(env.BOOTDECK_LAB_UNIT_DIR, "shown.service.d"), { recursive: true });
    fs.writeFileSync(path.join(env.BOOTDECK_LAB_UNIT_DIR, "shown.service.d", "10-x.conf"), "[Service]\nEnvironment=A=1\n");
    const shown = await run("systemctl", "cat", "shown");
    expect(shown.code).toBe(0);
    expect(shown.out).toContain(`# ${path.join(env.BOOTDECK_LAB_UNIT_DIR, "shown.service")}\n[Service]\nExecStart=/bin/true`);
    expect(shown.out).toContain("10-x.conf\n[Service]\nEnvironment=A=1");
    const missing = await run("systemctl", "cat", "nope");
    expect(missing.code).toBe(1);
    expect(missing.out).toContain("No files found for nope.service.");
  }, 30_000);
});
