import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { DIAGNOSTICS_SCRIPT, DIAGNOSTICS_SECTIONS, hostDiagnosticsParams, parseDiagnostics, runHostDiagnostics } from "./diagnostics";
import { testKeyPair } from "../../test/ssh-key";

describe("the diagnostics script (golden)", () => {
  test("is exactly this text", () => {
    expect(DIAGNOSTICS_SCRIPT).toMatchInlineSnapshot(`
      "probe() {
        if ! command -v "$1" >/dev/null 2>&1; then echo "($1 is not installed on this host)"; return 0; fi
        if command -v timeout >/dev/null 2>&1; then timeout 4 "$@" 2>&1; else "$@" 2>&1; fi
        rc=$?
        [ "$rc" -eq 0 ] || echo "($1 exited with code $rc)"
        return 0
      }
      echo "== kubelet journal =="
      probe journalctl -u kubelet -n 200 --no-pager
      echo "== kubelet unit =="
      probe systemctl status kubelet --no-pager
      echo "== containerd journal =="
      probe journalctl -u containerd -n 100 --no-pager
      echo "== containers =="
      probe crictl ps -a
      echo "== disk =="
      probe df -h
      echo "== time =="
      probe date -u
      probe timedatectl
      echo "== ports =="
      probe ss -ltnp
      echo "== swap =="
      if [ -r /proc/swaps ]; then cat /proc/swaps; else echo "(no /proc/swaps on this host)"; fi
      echo "== API audit log =="
      if [ -r /var/log/kubernetes/audit/audit.log ]; then tail -n 40 /var/log/kubernetes/audit/audit.log; else echo "(no /var/log/kubernetes/audit/audit.log on this host: the API servers on masters write it)"; fi
      exit 0"
    `);
  });

  test("runs in a plain sh, prints every section in order, and notes missing tools instead of failing", () => {
    const out = execFileSync("sh", ["-c", DIAGNOSTICS_SCRIPT.replace("probe df -h", "probe no-such-tool-here -h"), "bootdeck-diagnostics"], { encoding: "utf8", timeout: 60_000 });
    const sections = parseDiagnostics(out);
    expect(sections.map((s) => s.title)).toEqual([...DIAGNOSTICS_SECTIONS]);
    expect(sections.find((s) => s.title === "disk")?.text).toBe("(no-such-tool-here is not installed on this host)");
    expect(sections.find((s) => s.title === "time")?.text).toMatch(/UTC/);
    // This machine is no master: the section says where the log would be instead of failing.
    expect(sections.find((s) => s.title === "API audit log")?.text).toMatch(/^\(no \/var\/log\/kubernetes\/audit\/audit\.log on this host/);
  });
});

describe("parseDiagnostics", () => {
  test("splits on the expected headings only, in order, and drops what comes before the first", () => {
    const out = [
      "sudo: unable to resolve host x",
      "== kubelet journal ==",
      "line 1",
      "== swap ==", // not the next heading: stays text
      "line 2",
      "",
      "== kubelet unit ==",
      "active",
      "== containerd journal ==",
      "containerd successfully booted",
      "== containers ==",
      "== disk ==",
      "/dev/sda1 10G",
      "== time ==",
      "== ports ==",
      "== swap ==",
      "Filename Type",
      "== API audit log ==",
      '{"kind":"Event","level":"Metadata","verb":"get"}',
      "",
    ].join("\n");
    expect(parseDiagnostics(out)).toEqual([
      { title: "kubelet journal", text: "line 1\n== swap ==\nline 2" },
      { title: "kubelet unit", text: "active" },
      { title: "containerd journal", text: "containerd successfully booted" },
      { title: "containers", text: "" },
      { title: "disk", text: "/dev/sda1 10G" },
      { title: "time", text: "" },
      { title: "ports", text: "" },
      { title: "swap", text: "Filename Type" },
      { title: "API audit log", text: '{"kind":"Event","level":"Metadata","verb":"get"}' },
    ]);
  });

  test("marks the sections a cut-off output never reached", () => {
    const sections = parseDiagnostics("== kubelet journal ==\nx\n== kubelet unit ==\ny");
    expect(sections.map((s) => s.text)).toEqual(["x", "y", ...Array(DIAGNOSTICS_SECTIONS.length - 2).fill(expect.stringContaining("stopped before this section"))]);
  });
});

describe("hostDiagnosticsParams", () => {
  test("takes a cluster id and a host name by the definition's rules", () => {
    expect(hostDiagnosticsParams.safeParse({ id: "cl_AAAAAAAAAAAAAAAA", host: "worker-1" }).success).toBe(true);
    for (const host of ["Worker-1", "-x", "a;b", "a".repeat(64), "../x"]) expect(hostDiagnosticsParams.safeParse({ id: "cl_AAAAAAAAAAAAAAAA", host }).success, host).toBe(false);
  });
});

describe("runHostDiagnostics", () => {
  let db: TempDb;
  let clusterId: string;
  beforeAll(async () => {
    db = await createTempDb();
    const key = testKeyPair();
    clusterId = (await createCluster({ definition: exampleDefinition({ name: "diag", hosts: 2 }), secrets: { "admin-key": { privateKey: key.private } } })).id;
  });
  afterAll(async () => db?.cleanup());

  test("refuses an unknown cluster or host (404) and a host whose key is not pinned (409), without connecting or decrypting", async () => {
    await expect(runHostDiagnostics({ clusterId: "cl_AAAAAAAAAAAAAAAA", host: "master-1" })).rejects.toMatchObject({ status: 404 });
    await expect(runHostDiagnostics({ clusterId, host: "worker-9" })).rejects.toMatchObject({ status: 404 });
    await expect(runHostDiagnostics({ clusterId, host: "master-1" })).rejects.toMatchObject({ status: 409, message: expect.stringContaining("not pinned") });
    expect(await getDb().auditEvent.count({ where: { action: "secret.use" } })).toBe(0);
  });
});
