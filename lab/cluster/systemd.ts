// systemctl and journalctl stand-ins for lab hosts. Real systemd cannot be PID 1 there: the hosts are
// namespaces on a machine whose /sys/fs/cgroup offers no cgroup2 controllers, and the base image has no
// systemd. A small manager process (started by the first systemctl call that needs it) reads units
// from /etc/systemd/system plus drop-ins and supervises them: ExecStartPre, ExecStart, Environment,
// EnvironmentFile (with "-"), Restart=always/on-failure with RestartSec, and ConditionPathExists — a
// failed condition skips the unit silently, as real systemd does (the trap acs-engine's kubelet unit fell into). Output goes to a
// per-unit journal file that journalctl -u reads.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const UNIT_DIR = process.env.BOOTDECK_LAB_UNIT_DIR ?? "/etc/systemd/system";
const RUN = process.env.BOOTDECK_LAB_SYSTEMD_RUN ?? "/run/bootdeck-lab-systemd";
const JOURNAL = process.env.BOOTDECK_LAB_JOURNAL ?? "/var/log/bootdeck-lab-journal";
const SOCK = path.join(RUN, "manager.sock");

export type Unit = {
  name: string;
  description: string;
  path: string;
  dropIns: string[];
  execStartPre: string[];
  execStart: string[];
  environment: Record<string, string>;
  environmentFiles: { path: string; optional: boolean }[];
  restart: string;
  restartSec: number;
  conditionPathExists: string[];
  wantedBy: string[];
  /** control-group (the default): stop kills the whole process group; process: the main process only (containerd's shims live on). */
  killMode: string;
};

/** Parses a unit file and its drop-ins (later assignments win; an empty ExecStart= resets the list). */
export function parseUnit(name: string, texts: { path: string; text: string }[]): Unit {
  const u: Unit = { name, description: name, path: texts[0]?.path ?? "", dropIns: texts.slice(1).map((t) => t.path), execStartPre: [], execStart: [], environment: {}, environmentFiles: [], restart: "no", restartSec: 0.1, conditionPathExists: [], wantedBy: [], killMode: "control-group" };
  for (const { text } of texts) {
    const joined = text.replace(/\\\r?\n/g, " ");
    for (const raw of joined.split("\n")) {
      const line = raw.trim();
      if (!line || line.startsWith("#") || line.startsWith(";") || line.startsWith("[")) continue;
      const eq = line.indexOf("=");
      if (eq < 0) continue;
      const key = line.slice(0, eq).trim();
      const value = line.slice(eq + 1).trim();
      switch (key) {
        case "Description":
          u.description = value;
          break;
        case "ExecStart":
          if (value === "") u.execStart = [];
          else u.execStart.push(value);
          break;
        case "ExecStartPre":
          if (value === "") u.execStartPre = [];
          else u.execStartPre.push(value);
          break;
        case "Environment":
          for (const w of splitWords(value)) {
            const i = w.indexOf("=");
            if (i > 0) u.environment[w.slice(0, i)] = w.slice(i + 1);
          }
          break;
        case "EnvironmentFile":
          if (value) u.environmentFiles.push({ path: value.replace(/^-/, ""), optional: value.startsWith("-") });
          break;
        case "Restart":
          u.restart = value;
          break;
        case "RestartSec":
          u.restartSec = parseSeconds(value);
          break;
        case "ConditionPathExists":
          if (value === "") u.conditionPathExists = [];
          else u.conditionPathExists.push(value);
          break;
        case "WantedBy":
          u.wantedBy.push(...value.split(/\s+/));
          break;
        case "KillMode":
          u.killMode = value;
          break;
      }
    }
  }
  return u;
}

function parseSeconds(v: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|min|m)?$/.exec(v);
  if (!m) return 0.1;
  const n = Number(m[1]);
  return m[2] === "ms" ? n / 1000 : m[2] === "min" || m[2] === "m" ? n * 60 : n;
}

/** systemd's word splitting: whitespace, with "…" and '…' quoting. */
export function splitWords(s: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote = "";
  let has = false;
  for (const ch of s) {
    if (quote) {
      if (ch === quote) quote = "";
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
    } else if (/\s/.test(ch)) {
      if (cur || has) out.push(cur);
      cur = "";
      has = false;
    } else cur += ch;
  }
  if (cur || has) out.push(cur);
  return out;
}

/** EnvironmentFile syntax: KEY=value lines, optional quotes, comments. */
export function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    let v = m[2] ?? "";
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) v = v.slice(1, -1);
    env[m[1] ?? ""] = v;
  }
  return env;
}

/** ExecStart expansion: `$VAR` alone splits into words, `${VAR}` stays one word. */
export function expandCommand(line: string, env: Record<string, string>): { argv: string[]; ignoreFailure: boolean } {
  let l = line.trim();
  let ignoreFailure = false;
  while (/^[-@+!:]/.test(l)) {
    if (l[0] === "-") ignoreFailure = true;
    l = l.slice(1);
  }
  const argv: string[] = [];
  for (const w of splitWords(l)) {
    const whole = /^\$([A-Za-z_][A-Za-z0-9_]*)$/.exec(w);
    if (whole) argv.push(...(env[whole[1] ?? ""] ?? "").split(/\s+/).filter(Boolean));
    else argv.push(w.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, a: string | undefined, b: string | undefined) => env[a ?? b ?? ""] ?? ""));
  }
  return { argv, ignoreFailure };
}

function loadUnit(name: string): Unit | undefined {
  const file = path.join(UNIT_DIR, name);
  if (!fs.existsSync(file)) return undefined;
  const texts = [{ path: file, text: fs.readFileSync(file, "utf8") }];
  const dropDir = `${file}.d`;
  if (fs.existsSync(dropDir))
    for (const f of fs.readdirSync(dropDir).filter((x) => x.endsWith(".conf")).sort()) texts.push({ path: path.join(dropDir, f), text: fs.readFileSync(path.join(dropDir, f), "utf8") });
  return parseUnit(name, texts);
}

const unitName = (n: string) => (n.includes(".") ? n : `${n}.service`);
const stamp = () => {
  const d = new Date();
  return `${d.toLocaleString("en-US", { month: "short", timeZone: "UTC" })} ${String(d.getUTCDate()).padStart(2, "0")} ${d.toISOString().slice(11, 19)}`;
};

// ------------------------------------------------------------------ the manager
type UnitState = { unit?: Unit; active: "inactive" | "activating" | "active" | "failed" | "deactivating"; sub: string; pid?: number; child?: ChildProcess; since: string; restarts: number; stopping: boolean; timer?: NodeJS.Timeout; result?: string; conditionFailed?: string };

class Manager {
  private readonly units = new Map<string, UnitState>();

  journal(unit: string, ident: string, msg: string): void {
    fs.mkdirSync(JOURNAL, { recursive: true });
    fs.appendFileSync(path.join(JOURNAL, `${unit}.log`), `${stamp()} ${os.hostname()} ${ident}: ${msg}\n`);
  }

  state(name: string): UnitState {
    let s = this.units.get(name);
    if (!s) {
      s = { unit: loadUnit(name), active: "inactive", sub: "dead", since: new Date().toISOString(), restarts: 0, stopping: false };
      this.units.set(name, s);
    }
    return s;
  }

  reload(): void {
    for (const [name, s] of this.units) s.unit = loadUnit(name);
  }

  async start(name: string): Promise<{ code: number; err?: string }> {
    const s = this.state(name);
    if (!s.unit) s.unit = loadUnit(name);
    const u = s.unit;
    if (!u) return { code: 5, err: `Failed to start ${name}: Unit ${name} not found.` };
    if (s.active === "active" || s.active === "activating") return { code: 0 };
    s.stopping = false;
    s.conditionFailed = undefined;
    for (const c of u.conditionPathExists) {
      const neg = c.startsWith("!");
      const p = c.replace(/^[!|]+/, "");
      if (fs.existsSync(p) === neg) {
        s.conditionFailed = `ConditionPathExists=${c}`;
        s.since = new Date().toISOString();
        this.journal(name, "systemd[1]", `${u.description} was skipped because of an unmet condition check (ConditionPathExists=${c}).`);
        return { code: 0 };
      }
    }
    const env: Record<string, string> = { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", LANG: "C.UTF-8", ...u.environment };
    for (const f of u.environmentFiles) {
      try {
        Object.assign(env, parseEnvFile(fs.readFileSync(f.path, "utf8")));
      } catch {
        if (!f.optional) {
          this.fail(name, s, "resources", `Failed to load environment files: No such file or directory`);
          return { code: 1, err: `Job for ${name} failed because of unavailable resources or another system error.\nSee "systemctl status ${name}" and "journalctl -xeu ${name}" for details.` };
        }
      }
    }
    s.active = "activating";
    s.sub = "start-pre";
    for (const line of u.execStartPre) {
      const { argv, ignoreFailure } = expandCommand(line, env);
      const code = await this.runOnce(name, argv, env);
      if (code !== 0 && !ignoreFailure) {
        this.fail(name, s, "exit-code", `${name}: Control process exited, code=exited, status=${code}/FAILURE`);
        this.scheduleRestart(name, s);
        return { code: 1, err: `Job for ${name} failed because the control process exited with error code.\nSee "systemctl status ${name}" and "journalctl -xeu ${name}" for details.` };
      }
    }
    const main = u.execStart[u.execStart.length - 1];
    if (!main) {
      this.fail(name, s, "resources", `${name}: Service has no ExecStart=, ExecStop=, or SuccessAction=. Refusing.`);
      return { code: 1, err: `Failed to start ${name}: Unit ${name} has a bad unit file setting.` };
    }
    const { argv } = expandCommand(main, env);
    const logFd = this.logFd(name);
    let child: ChildProcess;
    try {
      child = spawn(argv[0] ?? "/bin/false", argv.slice(1), { env: env as unknown as NodeJS.ProcessEnv, stdio: ["ignore", logFd, logFd], detached: true, cwd: "/" });
    } finally {
      fs.closeSync(logFd);
    }
    s.child = child;
    s.pid = child.pid;
    s.active = "active";
    s.sub = "running";
    s.since = new Date().toISOString();
    this.journal(name, "systemd[1]", `Started ${name} - ${u.description}.`);
    child.on("error", (e) => this.journal(name, "systemd[1]", `${name}: Failed to execute ${argv[0]}: ${e.message}`));
    child.on("exit", (code, signal) => {
      if (s.child !== child) return;
      s.child = undefined;
      s.pid = undefined;
      if (s.stopping) {
        s.active = "inactive";
        s.sub = "dead";
        this.journal(name, "systemd[1]", `${name}: Deactivated successfully.`);
        this.journal(name, "systemd[1]", `Stopped ${name} - ${u.description}.`);
        return;
      }
      const status = signal ? `killed, signal=${signal}` : `exited, status=${code}/${code === 0 ? "SUCCESS" : "FAILURE"}`;
      this.journal(name, "systemd[1]", `${name}: Main process ${signal ? "killed" : "exited"}, code=${signal ? "killed" : "exited"}, status=${signal ?? code}${signal ? "" : code === 0 ? "/SUCCESS" : "/FAILURE"}`);
      if (code === 0 && !signal) {
        s.active = "inactive";
        s.sub = "dead";
      } else this.fail(name, s, "exit-code", `${name}: Failed with result 'exit-code'. (${status})`);
      if (u.restart === "always" || (u.restart === "on-failure" && (code !== 0 || signal))) this.scheduleRestart(name, s);
    });
    return { code: 0 };
  }

  private logFd(name: string): number {
    fs.mkdirSync(JOURNAL, { recursive: true });
    return fs.openSync(path.join(JOURNAL, `${name}.log`), "a");
  }

  private runOnce(name: string, argv: string[], env: Record<string, string>): Promise<number> {
    return new Promise((resolve) => {
      const fd = this.logFd(name);
      const c = spawn(argv[0] ?? "/bin/false", argv.slice(1), { env: env as unknown as NodeJS.ProcessEnv, stdio: ["ignore", fd, fd] });
      fs.closeSync(fd);
      c.on("error", () => resolve(203));
      c.on("exit", (code) => resolve(code ?? 1));
    });
  }

  private fail(name: string, s: UnitState, result: string, msg: string): void {
    s.active = "failed";
    s.sub = "failed";
    s.result = result;
    s.since = new Date().toISOString();
    this.journal(name, "systemd[1]", msg);
  }

  private scheduleRestart(name: string, s: UnitState): void {
    const u = s.unit;
    if (!u || (u.restart !== "always" && u.restart !== "on-failure")) return;
    s.active = "activating";
    s.sub = "auto-restart";
    s.timer = setTimeout(() => {
      if (s.stopping) return;
      s.restarts++;
      this.journal(name, "systemd[1]", `${name}: Scheduled restart job, restart counter is at ${s.restarts}.`);
      s.active = "inactive";
      void this.start(name);
    }, u.restartSec * 1000);
  }

  async stop(name: string): Promise<void> {
    const s = this.state(name);
    s.stopping = true;
    if (s.timer) clearTimeout(s.timer);
    const child = s.child;
    if (child?.pid) {
      s.active = "deactivating";
      this.journal(name, "systemd[1]", `Stopping ${name} - ${s.unit?.description ?? name}...`);
      const target = s.unit?.killMode === "process" ? child.pid : -child.pid;
      try {
        process.kill(target, "SIGTERM");
      } catch {
        /* gone */
      }
      const done = new Promise((r) => child.once("exit", r));
      const t = setTimeout(() => {
        try {
          if (child.pid) process.kill(s.unit?.killMode === "process" ? child.pid : -child.pid, "SIGKILL");
        } catch {
          /* gone */
        }
      }, 10_000);
      await done;
      clearTimeout(t);
    }
    s.active = "inactive";
    s.sub = "dead";
  }

  status(name: string): Record<string, unknown> {
    const s = this.state(name);
    return { name, loaded: !!s.unit, unit: s.unit, active: s.active, sub: s.sub, pid: s.pid, since: s.since, result: s.result, conditionFailed: s.conditionFailed, restarts: s.restarts };
  }
}

export async function runManager(): Promise<void> {
  fs.mkdirSync(RUN, { recursive: true });
  fs.rmSync(SOCK, { force: true });
  const m = new Manager();
  const server = net.createServer((sock) => {
    let buf = "";
    sock.on("data", (c) => {
      buf += c.toString();
      if (!buf.includes("\n")) return;
      const req = JSON.parse(buf.slice(0, buf.indexOf("\n"))) as { op: string; unit?: string };
      const reply = (v: unknown) => sock.end(`${JSON.stringify(v)}\n`);
      const u = req.unit ? unitName(req.unit) : "";
      void (async () => {
        switch (req.op) {
          case "start":
            return reply(await m.start(u));
          case "stop":
            await m.stop(u);
            return reply({ code: 0 });
          case "restart":
            await m.stop(u);
            m.state(u).unit = loadUnit(u) ?? m.state(u).unit;
            return reply(await m.start(u));
          case "reload":
            m.reload();
            return reply({ code: 0 });
          case "status":
            return reply(m.status(u));
          default:
            return reply({ code: 1, err: `unknown operation ${req.op}` });
        }
      })();
    });
  });
  server.listen(SOCK);
  fs.writeFileSync(path.join(RUN, "manager.pid"), String(process.pid));
  // Enabled units start at "boot" (when the manager starts).
  const wants = path.join(UNIT_DIR, "multi-user.target.wants");
  if (fs.existsSync(wants)) for (const f of fs.readdirSync(wants)) void m.start(f);
}

// ------------------------------------------------------------------ the CLIs
function call(req: Record<string, unknown>): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve, reject) => {
    const s = net.connect(SOCK);
    let buf = "";
    s.on("connect", () => s.write(`${JSON.stringify(req)}\n`));
    s.on("data", (c) => (buf += c.toString()));
    s.on("end", () => {
      try {
        resolve(JSON.parse(buf));
      } catch (e) {
        reject(e);
      }
    });
    s.on("error", reject);
  });
}

async function ensureManager(): Promise<void> {
  try {
    await call({ op: "ping" });
    return;
  } catch {
    /* not running */
  }
  fs.mkdirSync(RUN, { recursive: true });
  const self = [process.execPath, ...process.execArgv, process.argv[1] ?? "", "lab-systemd"];
  const out = fs.openSync(path.join(RUN, "manager.log"), "a");
  const c = spawn(self[0] ?? "node", self.slice(1), { detached: true, stdio: ["ignore", out, out], env: { ...process.env, BOOTDECK_LAB_COMPONENT: "" } });
  c.unref();
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    try {
      await call({ op: "ping" });
      return;
    } catch {
      /* starting */
    }
  }
  throw new Error("the lab systemd manager did not start");
}

function ago(iso: string): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return s < 60 ? `${s}s ago` : `${Math.floor(s / 60)}min ${s % 60}s ago`;
}

export async function runSystemctl(argv: string[]): Promise<number> {
  const args = argv.filter((a) => !["--no-pager", "-q", "--quiet", "--no-block", "--full", "-l"].includes(a));
  const quiet = argv.includes("-q") || argv.includes("--quiet");
  const now = args.includes("--now");
  const [verb, ...rest] = args.filter((a) => a !== "--now");
  const units = rest.map(unitName);
  await ensureManager();
  let code = 0;
  switch (verb) {
    case "daemon-reload":
      await call({ op: "reload" });
      return 0;
    case "start":
    case "restart":
    case "try-restart":
    case "reload-or-restart":
      for (const u of units) {
        const r = await call({ op: verb === "start" ? "start" : "restart", unit: u });
        if (r.err) process.stderr.write(`${r.err}\n`);
        code ||= r.code;
      }
      return code;
    case "stop":
      for (const u of units) await call({ op: "stop", unit: u });
      return 0;
    case "enable":
    case "disable":
      for (const u of units) {
        const file = path.join(UNIT_DIR, u);
        if (!fs.existsSync(file)) {
          process.stderr.write(`Failed to ${verb} unit: Unit file ${u} does not exist.\n`);
          return 1;
        }
        const link = path.join(UNIT_DIR, "multi-user.target.wants", u);
        if (verb === "enable" && !fs.existsSync(link)) {
          fs.mkdirSync(path.dirname(link), { recursive: true });
          fs.symlinkSync(file, link);
          process.stderr.write(`Created symlink ${link} → ${file}.\n`);
        }
        if (verb === "disable" && fs.existsSync(link)) {
          fs.rmSync(link);
          process.stderr.write(`Removed "${link}".\n`);
        }
        if (now) {
          const r = await call({ op: verb === "enable" ? "start" : "stop", unit: u });
          if (r.err) process.stderr.write(`${r.err}\n`);
          code ||= r.code ?? 0;
        }
      }
      return code;
    case "cat":
      for (const u of units) {
        const unit = loadUnit(u);
        if (!unit) {
          process.stderr.write(`No files found for ${u}.\n`);
          return 1;
        }
        for (const f of [unit.path, ...unit.dropIns]) process.stdout.write(`# ${f}\n${fs.readFileSync(f, "utf8")}\n`);
      }
      return 0;
    case "is-enabled":
      for (const u of units) {
        const on = fs.existsSync(path.join(UNIT_DIR, "multi-user.target.wants", u));
        if (!quiet) process.stdout.write(`${on ? "enabled" : "disabled"}\n`);
        if (!on) code = 1;
      }
      return code;
    case "is-active":
    case "is-failed":
      for (const u of units) {
        const st = await call({ op: "status", unit: u });
        if (!quiet) process.stdout.write(`${st.active}\n`);
        if (verb === "is-active" ? st.active !== "active" : st.active !== "failed") code = verb === "is-active" ? 3 : 1;
      }
      return code;
    case "show": {
      // systemctl show -p Prop[,Prop] [--value] UNIT: the properties scripts read (NRestarts and friends).
      const props: string[] = [];
      const names: string[] = [];
      for (let i = 0; i < rest.length; i++) {
        const a = rest[i] ?? "";
        if (a === "-p" || a === "--property") props.push(...(rest[++i] ?? "").split(","));
        else if (a.startsWith("--property=")) props.push(...a.slice(11).split(","));
        else if (a !== "--value") names.push(unitName(a));
      }
      const valueOnly = rest.includes("--value");
      for (const u of names) {
        const st = await call({ op: "status", unit: u });
        const all: Record<string, string> = {
          Id: u,
          LoadState: st.loaded ? "loaded" : "not-found",
          ActiveState: String(st.active),
          SubState: String(st.sub),
          MainPID: String(st.pid ?? 0),
          NRestarts: String(st.restarts ?? 0),
          Result: String(st.result ?? "success"),
        };
        for (const p of props.length ? props : Object.keys(all)) process.stdout.write(valueOnly ? `${all[p] ?? ""}\n` : `${p}=${all[p] ?? ""}\n`);
      }
      return 0;
    }
    case "status":
      for (const u of units) {
        const st = await call({ op: "status", unit: u });
        if (!st.loaded) {
          process.stderr.write(`Unit ${u} could not be found.\n`);
          code = 4;
          continue;
        }
        const unit = st.unit as Unit;
        const enabled = fs.existsSync(path.join(UNIT_DIR, "multi-user.target.wants", u)) ? "enabled" : "disabled";
        const dot = st.active === "active" ? "●" : st.active === "failed" ? "×" : "○";
        const lines = [`${dot} ${u} - ${unit.description}`, `     Loaded: loaded (${unit.path}; ${enabled}; preset: enabled)`];
        if (unit.dropIns.length) lines.push(`    Drop-In: ${path.dirname(unit.dropIns[0] ?? "")}`, ...unit.dropIns.map((d) => `             └─${path.basename(d)}`));
        const since = `since ${new Date(st.since).toUTCString()}; ${ago(st.since)}`;
        if (st.conditionFailed) lines.push(`     Active: inactive (dead)`, `  Condition: start condition unmet at ${new Date(st.since).toUTCString()}; ${ago(st.since)}`, `             └─ ${st.conditionFailed} was not met`);
        else if (st.active === "failed") lines.push(`     Active: failed (Result: ${st.result}) ${since}`);
        else if (st.sub === "auto-restart") lines.push(`     Active: activating (auto-restart) (Result: ${st.result ?? "exit-code"}) ${since}`);
        else lines.push(`     Active: ${st.active} (${st.sub}) ${since}`);
        if (st.pid) lines.push(`   Main PID: ${st.pid} (${path.basename(expandCommand(unit.execStart[unit.execStart.length - 1] ?? "", {}).argv[0] ?? "")})`);
        process.stdout.write(`${lines.join("\n")}\n\n${journalLines(u, 10).join("\n")}\n`);
        if (st.active !== "active") code = 3;
      }
      return code;
    default:
      process.stderr.write(`systemctl (bootdeck lab stand-in): unknown command "${verb ?? ""}"\n`);
      return 1;
  }
}

function journalLines(unit: string, n: number): string[] {
  const f = path.join(JOURNAL, `${unit}.log`);
  if (!fs.existsSync(f)) return [];
  const lines = fs.readFileSync(f, "utf8").split("\n").filter(Boolean);
  return n >= 0 ? lines.slice(-n) : lines;
}

export async function runJournalctl(argv: string[]): Promise<number> {
  // A reader that stops early (| head, grep -m) closes the pipe: that ends journalctl, as the real one.
  process.stdout.on("error", (e: NodeJS.ErrnoException) => process.exit(e.code === "EPIPE" ? 0 : 1));
  let unit: string | undefined;
  let n = -1;
  let follow = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (a === "-u" || a === "--unit") unit = unitName(argv[++i] ?? "");
    else if (a.startsWith("--unit=")) unit = unitName(a.slice(7));
    else if (a.startsWith("-u") && a.length > 2) unit = unitName(a.slice(2));
    else if (a === "-n" || a === "--lines") n = Number(argv[++i]);
    else if (a.startsWith("--lines=")) n = Number(a.slice(8));
    else if (/^-n\d+$/.test(a)) n = Number(a.slice(2));
    else if (a === "-f" || a === "--follow") follow = true;
    else if (a === "-xeu" || a === "-eu") unit = unitName(argv[++i] ?? "");
  }
  if (!unit) {
    process.stderr.write("journalctl (bootdeck lab stand-in): use -u UNIT\n");
    return 1;
  }
  const lines = journalLines(unit, follow && n < 0 ? 10 : n);
  if (lines.length === 0 && !follow) process.stdout.write("-- No entries --\n");
  else process.stdout.write(lines.map((l) => `${l}\n`).join(""));
  if (!follow) return 0;
  const f = path.join(JOURNAL, `${unit}.log`);
  let size = fs.existsSync(f) ? fs.statSync(f).size : 0;
  for (;;) {
    await new Promise((r) => setTimeout(r, 300));
    if (!fs.existsSync(f)) continue;
    const st = fs.statSync(f);
    if (st.size > size) {
      const fd = fs.openSync(f, "r");
      const b = Buffer.alloc(st.size - size);
      fs.readSync(fd, b, 0, b.length, size);
      fs.closeSync(fd);
      process.stdout.write(b);
      size = st.size;
    }
  }
}
