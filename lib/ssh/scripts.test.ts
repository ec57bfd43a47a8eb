// Golden tests: the exact text of every command and script the executor sends to hosts.
import { describe, expect, it } from "vitest";
import { buildKillCommand, buildRemoteCommand, MAX_COMMAND_BYTES } from "./exec";
import { QuoteError } from "./quote";
import { RUN_WRAPPER, UPLOAD_APPLY, UPLOAD_PROBE } from "./scripts";
import { normaliseFiles, planApply, probeArgs } from "./upload";

describe("golden scripts", () => {
  it("run wrapper", () => {
    expect(RUN_WRAPPER).toMatchInlineSnapshot(`
      "stop() {
        p=$!
        [ -n "$p" ] || exit 143
        i=0
        while [ "$i" -lt 10 ]; do
          kill -TERM "-$p" 2>/dev/null && break
          kill -TERM "$p" 2>/dev/null || break
          sleep 0.1; i=$((i + 1))
        done
        i=0
        while [ "$i" -lt 10 ] && kill -0 "-$p" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
        kill -KILL "-$p" 2>/dev/null
        exit 143
      }
      trap stop TERM HUP INT
      echo "bootdeck-pid $$" >&2
      exec 3<&0
      setsid "$@" <&3 3<&- &
      exec 3<&-
      wait "$!""
    `);
  });

  it("remote command for root and for a sudo user", () => {
    const root = buildRemoteCommand(["systemctl", "restart", "kubelet"], "root");
    expect(root).toBe(`sh -c '${RUN_WRAPPER.replaceAll("'", `'\\''`)}' bootdeck-run systemctl restart kubelet`);
    const sudo = buildRemoteCommand(["cat", "/etc/it's"], "deploy");
    expect(sudo).toBe(`sudo -n -- sh -c '${RUN_WRAPPER.replaceAll("'", `'\\''`)}' bootdeck-run cat '/etc/it'\\''s'`);
  });

  it("kill command", () => {
    expect(buildKillCommand("4242", "root")).toBe("kill -TERM 4242");
    expect(buildKillCommand("4242", "deploy")).toBe("sudo -n -- kill -TERM 4242");
    expect(() => buildKillCommand("1; reboot", "root")).toThrow();
  });

  it("refuses command lines the remote shell cannot take", () => {
    expect(() => buildRemoteCommand(["printf", "x".repeat(MAX_COMMAND_BYTES)], "root")).toThrow(QuoteError);
    expect(() => buildRemoteCommand(["printf", "x".repeat(100_000)], "root")).not.toThrow();
  });

  it("upload probe", () => {
    expect(UPLOAD_PROBE).toMatchInlineSnapshot(`
      "n=$#
      for f; do
        if [ -f "$f" ]; then set -- "$@" "$f"; printf y; else printf n; fi
      done
      echo
      shift "$n"
      if [ "$#" -gt 0 ]; then
        stat --printf '%a %U:%G\\n' -- "$@"
        sha256sum -z -- "$@"
      fi"
    `);
    expect(probeArgs(normaliseFiles([{ path: "/etc/a", content: "" }, { path: "/etc/b c", content: "" }]))).toEqual([
      "sh",
      "-c",
      UPLOAD_PROBE,
      "bootdeck-probe",
      "/etc/a",
      "/etc/b c",
    ]);
  });

  it("upload apply", () => {
    expect(UPLOAD_APPLY).toMatchInlineSnapshot(`
      "set -eu
      sums=$1; want=$2; stage=$3; nd=$4; nt=$5; shift 5
      on_dirs() { c=$1; shift; n=$#; i=0
        for a; do i=$((i + 1)); if [ "$i" -le "$nd" ]; then set -- "$@" "$a"; fi; done
        shift "$n"; "$c" "$@"; }
      on_temps() { c=$1; shift; shift "$nd"; "$c" "$@"; }
      mkstages() { for d; do mkdir -p -m 700 -- "$d/$stage"; done; }
      rmstages() { for d; do rm -rf -- "$d/$stage"; done; }
      movein() { for d; do find "$d/$stage" -mindepth 1 -maxdepth 1 -exec mv -f -t "$d" -- {} +; rmdir -- "$d/$stage"; done; }
      syncfs_all() { sync -f -- "$@"; }
      stat_all() { stat --printf '%a %U:%G\\n' -- "$@"; }
      fail() { on_dirs rmstages "$@"; echo "bootdeck-upload: $msg" >&2; exit "$code"; }
      on_dirs mkstages "$@"
      if ! tar -x -f - -C / --same-owner --same-permissions; then msg="tar extraction failed"; code=90; fail "$@"; fi
      if ! printf '%s' "$sums" | sha256sum -c --quiet --strict - >&2; then msg="checksum mismatch after transfer"; code=91; fail "$@"; fi
      got=$(on_temps stat_all "$@")
      if [ "$got" != "$want" ]; then msg="mode/owner not as requested: wanted [$want] got [$got] (does the owner exist on this host?)"; code=92; fail "$@"; fi
      on_dirs syncfs_all "$@"
      on_dirs movein "$@"
      on_dirs syncfs_all "$@"
      echo "bootdeck-upload: wrote $nt""
    `);
    const files = normaliseFiles([
      { path: "/etc/kubernetes/tls/ca.crt", content: "ca", mode: 0o644 },
      { path: "/etc/kubernetes/tls/ca.key", content: "key" },
      { path: "/etc/kubernetes/manifests/x\ny.yaml", content: "m", owner: "deploy:deploy" },
    ]);
    const plan = planApply(files, "n0nce");
    expect(plan.argv.slice(4)).toEqual([
      [
        "6959097001d10501ac7d54c0bdb8db61420f658f2922cc26e46d536119a31126  /etc/kubernetes/tls/.bootdeck-upload-n0nce/ca.crt",
        "2c70e12b7a0646f92279f427c7b38e7334d8e5389cff167a1dc30e73f826b683  /etc/kubernetes/tls/.bootdeck-upload-n0nce/ca.key",
        "\\62c66a7a5dd70c3146618063c344e531e6d4b59e379808443ce962b3abd63c5a  /etc/kubernetes/manifests/.bootdeck-upload-n0nce/x\\ny.yaml",
        "",
      ].join("\n"),
      "644 root:root\n600 root:root\n600 deploy:deploy",
      ".bootdeck-upload-n0nce",
      "2",
      "3",
      "/etc/kubernetes/tls",
      "/etc/kubernetes/manifests",
      "/etc/kubernetes/tls/.bootdeck-upload-n0nce/ca.crt",
      "/etc/kubernetes/tls/.bootdeck-upload-n0nce/ca.key",
      "/etc/kubernetes/manifests/.bootdeck-upload-n0nce/x\ny.yaml",
    ]);
  });
});
