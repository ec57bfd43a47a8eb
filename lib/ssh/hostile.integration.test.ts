// The hostile corpus travels through the quoting helper to a real shell and comes back byte for byte:
// `printf '%s\0' ARGS…` on the host prints each argument NUL-terminated, so any interpretation shows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LabState } from "../../lab/state";
import { labState, labTarget } from "../../test/lab-hosts";
import { HOSTILE_CORPUS } from "./hostile-corpus";
import { Executor } from "./executor";
import { QuoteError } from "./quote";

let state: LabState;
let ex: Executor;
beforeAll(() => {
  state = labState();
  ex = new Executor();
});
afterAll(async () => {
  await ex.close();
});

const usable = HOSTILE_CORPUS.filter((v) => !v.includes("\0"));

for (const user of ["root", "deploy"]) {
  describe(`hostile arguments as ${user}${user === "root" ? "" : " (through sudo -n)"}`, () => {
    it("round-trips every value unchanged (the 100 KB one in its own command)", async () => {
      const host = labTarget(state, 0, user);
      const long = usable.filter((v) => v.length >= 50_000);
      const rest = usable.filter((v) => v.length < 50_000);
      expect(long.length).toBe(1);
      for (const batch of [rest, long]) {
        const r = await ex.run(host, ["printf", "%s\\0", ...batch], { quiet: true });
        expect(r.stdout.toString("utf8").split("\0").slice(0, -1)).toEqual(batch);
      }
    });

    it("round-trips each value alone, also as the script of sh -c's positional parameters", async () => {
      const host = labTarget(state, 0, user);
      for (const v of usable.filter((x) => x.length < 1000)) {
        const r = await ex.run(host, ["sh", "-c", 'printf "%s\\0" "$@"', "argv0", v, "-n"], { quiet: true });
        expect(r.stdout.toString("utf8")).toBe(`${v}\0-n\0`);
      }
    });

    it("never creates files from injected commands", async () => {
      const host = labTarget(state, 0, user);
      await ex.run(host, ["printf", "%s\\0", "$(touch /tmp/pwned-1)", "`touch /tmp/pwned-2`", "; touch /tmp/pwned-3", "&& touch /tmp/pwned-4", "| touch /tmp/pwned-5", "\ntouch /tmp/pwned-6"], { quiet: true });
      const r = await ex.run(host, ["sh", "-c", "ls /tmp | grep -c pwned || true"]);
      expect(r.stdout.toString().trim()).toBe("0");
    });
  });
}

it("refuses NUL before anything is sent", async () => {
  await expect(ex.run(labTarget(state, 0), ["printf", "%s", "a\0b"])).rejects.toBeInstanceOf(QuoteError);
});
