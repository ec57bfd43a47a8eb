// Messages that arrive in bursts (an SSE poll finds many at once, a thousand pods change together) are
// applied together, once per animation frame, so a burst is one render rather than one per message.

export type FrameBatch<T> = {
  push: (item: T) => void;
  /** Applies what is queued now (before reading the state it changes), instead of at the next frame. */
  flushNow: () => void;
  cancel: () => void;
};

export function frameBatch<T>(apply: (batch: T[]) => void): FrameBatch<T> {
  // Outside a browser (unit tests) a 16 ms timer stands in for the frame.
  const nextFrame = typeof requestAnimationFrame === "function" ? requestAnimationFrame : (cb: () => void) => setTimeout(cb, 16) as unknown as number;
  const cancelFrame = typeof cancelAnimationFrame === "function" ? cancelAnimationFrame : (id: number) => clearTimeout(id);
  let queued: T[] = [];
  let frame: number | undefined;
  const flush = () => {
    frame = undefined;
    const batch = queued;
    queued = [];
    if (batch.length > 0) apply(batch);
  };
  return {
    push: (item) => {
      queued.push(item);
      frame ??= nextFrame(flush);
    },
    flushNow: () => {
      if (frame === undefined) return;
      cancelFrame(frame);
      flush();
    },
    cancel: () => {
      if (frame !== undefined) cancelFrame(frame);
      frame = undefined;
      queued = [];
    },
  };
}
