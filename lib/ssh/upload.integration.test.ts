// Uploads against real hosts: atomic, verified, idempotent (a second identical upload writes nothing).
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { LabState } from "../../lab/state";
import { labState, labTarget } from "../../test/lab-hosts";
import { SshError } from "./errors";
import { Executor } from "./executor";
import type { FileSpec } from "./upload";

let state: LabState;
let ex: Executor;
beforeAll(() => {
  state = labState();
});
afterEach(async () => {
  await ex?.close();
});

const statAll = async (host: ReturnType<typeof labTarget>, paths: string[]) =>
  (await ex.run(host, ["stat", "--printf", "%i %.9Y %a %U:%G %s\\n", "--", ...paths])).stdout.toString();

for (const user of ["root", "deploy"]) {
  describe(`upload as ${user}`, () => {
    it("writes new files with mode and owner, verified, then skips them all on a second identical run", async () => {
      ex = new Executor();
      const host = labTarget(state, 1, user);
      const dir = `/etc/bootdeck-upload-${user}-${Date.now()}`;
      const files: FileSpec[] = [
        { path: `${dir}/tls/ca.crt`, content: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", mode: 0o644 },
        { path: `${dir}/tls/ca.key`, content: Buffer.from([0, 1, 2, 255, 10, 13]), mode: 0o600 },
        { path: `${dir}/manifests/it's "odd" $(x) \`y\`;\nname.yaml`, content: "kind: Pod\n", mode: 0o640, owner: "deploy:deploy" },
        { path: `${dir}/empty`, content: "" },
      ];
      const first = await ex.upload(host, files, { step: "assets" });
      expect(first).toMatchObject({ written: 4, skipped: 0, execs: 2 });

      const paths = files.map((f) => f.path);
      const sums = await ex.run(host, ["sha256sum", "-z", "--", ...paths]);
      const want = (await import("node:crypto")).createHash;
      expect(sums.stdout.toString().split("\0").filter(Boolean).map((l) => l.replace(/^\\/, "").slice(0, 64))).toEqual(
        files.map((f) => want("sha256").update(f.content).digest("hex")),
      );
      const before = await statAll(host, paths);
      expect(before.split("\n").filter(Boolean).map((l) => l.split(" ").slice(2, 4).join(" "))).toEqual([
        "644 root:root",
        "600 root:root",
        "640 deploy:deploy",
        "600 root:root",
      ]);
      // No temporary files left behind.
      const leftovers = await ex.run(host, ["find", dir, "-name", "*.bootdeck-*"]);
      expect(leftovers.stdout.toString()).toBe("");

      await new Promise((r) => setTimeout(r, 1100)); // a rewrite would now change the mtime's seconds
      const second = await ex.upload(host, files, { step: "assets" });
      expect(second).toMatchObject({ written: 0, skipped: 4, execs: 1, bytes: 0 });
      expect(await statAll(host, paths)).toBe(before); // same inodes, same mtimes

      // One changed file: only it is replaced (new inode: written to a temp name, renamed over).
      const changed = files.map((f, i) => (i === 1 ? { ...f, content: "new key" } : f));
      const third = await ex.upload(host, changed, { step: "assets" });
      expect(third).toMatchObject({ written: 1, skipped: 3 });
      const after = (await statAll(host, paths)).split("\n");
      const beforeLines = before.split("\n");
      expect(after[0]).toBe(beforeLines[0]);
      expect(after[1]?.split(" ")[0]).not.toBe(beforeLines[1]?.split(" ")[0]);
      expect(after[2]).toBe(beforeLines[2]);
      await ex.run(host, ["rm", "-rf", "--", dir]);
    });
  });
}

describe("upload failures", () => {
  it("refuses an owner that does not exist on the host and leaves no temporary file", async () => {
    ex = new Executor();
    const host = labTarget(state, 1);
    const dir = `/tmp/bootdeck-owner-${Date.now()}`;
    const err = await ex.upload(host, [{ path: `${dir}/f`, content: "x", owner: "nosuchuser:nosuchuser" }], { step: "own" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SshError);
    expect((err as SshError).detail).toMatchObject({ kind: "command-failed", exitCode: 92 });
    expect((err as SshError).message).toContain("does the owner exist");
    const ls = await ex.run(host, ["ls", "-A", dir]);
    expect(ls.stdout.toString()).toBe("");
  });
});
