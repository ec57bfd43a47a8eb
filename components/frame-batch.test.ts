import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { frameBatch } from "./frame-batch";

describe("frameBatch", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("applies everything pushed before the next frame in one call, in order", () => {
    const apply = vi.fn();
    const b = frameBatch<number>(apply);
    b.push(1);
    b.push(2);
    expect(apply).not.toHaveBeenCalled();
    vi.advanceTimersByTime(16);
    expect(apply).toHaveBeenCalledExactlyOnceWith([1, 2]);
    b.push(3);
    vi.advanceTimersByTime(16);
    expect(apply).toHaveBeenLastCalledWith([3]);
  });

  it("applies at once when asked, and not again at the frame; a cancelled batch is dropped", () => {
    const apply = vi.fn();
    const b = frameBatch<string>(apply);
    b.push("a");
    b.flushNow();
    expect(apply).toHaveBeenCalledExactlyOnceWith(["a"]);
    b.flushNow();
    b.push("b");
    b.cancel();
    vi.advanceTimersByTime(100);
    expect(apply).toHaveBeenCalledTimes(1);
  });
});
