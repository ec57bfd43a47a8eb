// `bootdeck lab slow` delays a host's packets for real, also on kernels without sch_netem (these VMs):
// a TCP connection to the host's sshd takes the delay longer to open (its SYN-ACK leaves late), and
// `heal` takes it away again. Uses the integration lab's last host.
import net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { labState } from "../test/lab-hosts";
import { labHeal, labSlow } from "./lab";

const state = labState();
const host = state.hosts[state.hosts.length - 1]!;
afterAll(() => labHeal(state.name, host.name));

/** Median time to open a TCP connection to the host's sshd, over `n` tries. */
async function connectMs(n = 5): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const s = net.connect({ host: host.address, port: host.port }, () => {
        s.destroy();
        resolve();
      });
      s.once("error", reject);
      s.setTimeout(5_000, () => s.destroy(new Error("connect timed out")));
    });
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)]!;
}

describe("lab slow", () => {
  it("adds the delay to the host's outgoing packets, and heal removes it", async () => {
    const before = await connectMs();
    const lines: string[] = [];
    labSlow(state.name, host.name, "200ms", "0%", (l) => lines.push(l));
    expect(lines.join("\n")).toMatch(/200 ms delay/);
    const slowed = await connectMs();
    labHeal(state.name, host.name);
    const after = await connectMs();
    expect(slowed).toBeGreaterThanOrEqual(195);
    expect(slowed).toBeLessThan(before + 1_000);
    expect(after).toBeLessThan(100);
  });
});
