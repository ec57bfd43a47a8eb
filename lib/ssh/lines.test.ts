import { describe, expect, it } from "vitest";
import { LineSplitter } from "./lines";
import { Semaphore } from "./semaphore";

describe("LineSplitter", () => {
  it("splits across chunk boundaries, strips CR, and flushes a trailing partial line", () => {
    const out: string[] = [];
    const s = new LineSplitter((l) => out.push(l));
    s.push(Buffer.from("one\r\ntw"));
    s.push(Buffer.from("o\n\nthr"));
    // A multi-byte character split between chunks.
    const snow = Buffer.from("☃");
    s.push(Buffer.concat([Buffer.from("ee "), snow.subarray(0, 1)]));
    s.push(snow.subarray(1));
    s.flush();
    expect(out).toEqual(["one", "two", "", "three ☃"]);
  });
});

describe("Semaphore", () => {
  it("never runs more than its limit at once", async () => {
    const sem = new Semaphore(3);
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        sem.use(async () => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, 5));
          active--;
        }),
      ),
    );
    expect(peak).toBe(3);
    expect(sem.inFlight).toBe(0);
  });
});
