// A TCP proxy between the browser and the test server that a test can break on purpose: cut every
// open connection (a dropped network), refuse new ones for a while (the dashboard restarting with
// nothing in front of it), or answer them with 502 Bad Gateway (a reverse proxy in front of a
// restarting dashboard). Loopback only.
import net from "node:net";

export type Outage = "refuse" | "bad-gateway";

export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private badGateway = false;
  /** Connections accepted since start, and how many of them got a 502. */
  accepted = 0;
  answered502 = 0;

  constructor(
    private readonly target: { host: string; port: number },
    readonly port: number,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = net.createServer((client) => this.accept(client));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  }

  /** Destroys every open connection, both ends; returns how many there were. */
  cut(): number {
    const n = this.sockets.size;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    return n;
  }

  /**
   * Cuts every connection, then for `ms`: "refuse" stops listening (connections are refused),
   * "bad-gateway" answers each request with 502. Resolves when connections go through again.
   */
  async outage(kind: Outage, ms: number): Promise<void> {
    if (kind === "refuse") {
      this.server?.close();
      this.server = undefined;
      this.cut();
      await new Promise((r) => setTimeout(r, ms));
      await this.start();
      return;
    }
    this.badGateway = true;
    this.cut();
    await new Promise((r) => setTimeout(r, ms));
    this.badGateway = false;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.cut();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    this.accepted += 1;
    this.sockets.add(client);
    client.on("close", () => this.sockets.delete(client));
    client.on("error", () => undefined);
    if (this.badGateway) {
      client.once("data", () => {
        this.answered502 += 1;
        const body = "502 Bad Gateway\n";
        client.end(`HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
      });
      return;
    }
    const upstream = net.connect(this.target.port, this.target.host);
    this.sockets.add(upstream);
    upstream.on("close", () => {
      this.sockets.delete(upstream);
      client.destroy();
    });
    upstream.on("error", () => undefined);
    client.on("close", () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
