// Retries with exponential backoff, for connection errors only (the caller decides via `retryable`).

export type BackoffOptions = {
  /** Total attempts including the first (1 = no retry). */
  attempts: number;
  baseMs: number;
  maxMs: number;
  /** 0..1: fraction of each delay randomised, so many hosts do not retry in lock-step. */
  jitter: number;
};

export const DEFAULT_BACKOFF: BackoffOptions = { attempts: 3, baseMs: 250, maxMs: 4_000, jitter: 0.2 };

/** Delay before retry number `retry` (1-based): base·2^(retry-1), capped, with jitter subtracted. */
export function backoffDelay(retry: number, opts: BackoffOptions, random: () => number = Math.random): number {
  const raw = Math.min(opts.maxMs, opts.baseMs * 2 ** (retry - 1));
  return Math.round(raw * (1 - opts.jitter * random()));
}

export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  opts: BackoffOptions & {
    isRetryable: (err: unknown) => boolean;
    signal?: AbortSignal;
    sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
    onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
  },
): Promise<T> {
  const sleep = opts.sleep ?? abortableSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= opts.attempts || !opts.isRetryable(err) || opts.signal?.aborted) throw err;
      const delay = backoffDelay(attempt, opts);
      opts.onRetry?.(err, attempt, delay);
      await sleep(delay, opts.signal);
    }
  }
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
