import "server-only";
// Live run events across processes on PostgreSQL: every event is announced with NOTIFY in the
// transaction that stores it (events.ts), so the notification is delivered when, and only when, the
// event is committed. Each process that follows runs (a dashboard serving event streams) holds one
// LISTEN session and wakes its local listeners; they then read the new events from the database. A
// lost session is opened again (after 1 s, then up to every 10 s) and every listener is woken once,
// since notifications sent meanwhile are lost.
import pg from "pg";
import { POSTGRES_SESSION_OPTIONS } from "../db/postgres-session";

export const RUN_EVENT_CHANNEL = "bootdeck_run_event";

type Listener = (runId: string, seq: number | null) => void;

export class RunEventListener {
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private stopped = false;
  private retryMs = 1_000;

  constructor(
    private readonly url: string,
    private readonly onEvent: Listener,
    private readonly onReconnect: () => void,
  ) {}

  /** Resolves once LISTEN is in place. */
  start(): Promise<void> {
    this.connecting ??= this.connect();
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: "bootdeck events", options: POSTGRES_SESSION_OPTIONS });
    client.on("notification", (n) => {
      if (n.channel !== RUN_EVENT_CHANNEL || !n.payload) return;
      const at = n.payload.lastIndexOf(":");
      const runId = at > 0 ? n.payload.slice(0, at) : n.payload;
      const seq = at > 0 ? Number(n.payload.slice(at + 1)) : NaN;
      this.onEvent(runId, Number.isFinite(seq) ? seq : null);
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      client.removeAllListeners("notification");
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      const wait = this.retryMs;
      this.retryMs = Math.min(this.retryMs * 2, 10_000);
      setTimeout(() => {
        this.connecting = this.connect()
          .then(() => this.onReconnect())
          .catch(() => lost());
      }, wait).unref();
    };
    client.on("error", lost);
    client.on("end", lost);
    this.client = client;
    await client.connect();
    await client.query(`LISTEN ${RUN_EVENT_CHANNEL}`);
    this.retryMs = 1_000;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }
}
