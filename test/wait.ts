// Polls until fn returns a truthy value (thrown errors count as "not yet"); the last error is in the
// timeout's message. Test code only.
export async function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, ms = 60_000, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}${last ? `: ${last instanceof Error ? last.message : String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
