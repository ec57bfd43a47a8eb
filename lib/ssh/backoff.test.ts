import { describe, expect, it } from "vitest";
import { backoffDelay, withRetry, type BackoffOptions } from "./backoff";
import { SshError } from "./errors";

const opts: BackoffOptions = { attempts: 4, baseMs: 100, maxMs: 350, jitter: 0.5 };

describe("backoffDelay", () => {
  it("doubles from the base, caps at max, and subtracts up to `jitter` of it", () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, opts, () => 0))).toEqual([100, 200, 350, 350]);
    expect([1, 2, 3].map((n) => backoffDelay(n, opts, () => 1))).toEqual([50, 100, 175]);
  });
});

describe("withRetry", () => {
  const unreachable = () => new SshError({ kind: "unreachable", host: "h", address: "a" });
  const isRetryable = (e: unknown) => e instanceof SshError && e.retryable;

  it("retries retryable errors with the backoff delays, then succeeds", async () => {
    const sleeps: number[] = [];
    let calls = 0;
    const v = await withRetry(
      async () => {
        calls++;
        if (calls < 3) throw unreachable();
        return "ok";
      },
      { ...opts, jitter: 0, isRetryable, sleep: async (ms) => void sleeps.push(ms) },
    );
    expect(v).toBe("ok");
    expect(calls).toBe(3);
    expect(sleeps).toEqual([100, 200]);
  });

  it("gives up after `attempts` and rethrows the last error", async () => {
    let calls = 0;
    await expect(
      withRetry(async () => {
        calls++;
        throw unreachable();
      }, { ...opts, isRetryable, sleep: async () => undefined }),
    ).rejects.toMatchObject({ kind: "unreachable" });
    expect(calls).toBe(4);
  });

  it.each(["auth-failed", "host-key-changed"] as const)("never retries %s", async (kind) => {
    let calls = 0;
    const err =
      kind === "auth-failed"
        ? new SshError({ kind, host: "h", user: "u", methods: [] })
        : new SshError({ kind, host: "h", pinned: "a", offered: "b" });
    await expect(
      withRetry(async () => {
        calls++;
        throw err;
      }, { ...opts, isRetryable, sleep: async () => undefined }),
    ).rejects.toBe(err);
    expect(calls).toBe(1);
  });

  it("stops retrying once aborted", async () => {
    const ac = new AbortController();
    let calls = 0;
    await expect(
      withRetry(async () => {
        calls++;
        ac.abort();
        throw unreachable();
      }, { ...opts, isRetryable, signal: ac.signal }),
    ).rejects.toMatchObject({ kind: "unreachable" });
    expect(calls).toBe(1);
  });
});
