import "server-only";
// Prisma's better-sqlite3 driver adapter, with two of its flaws closed. It runs every query on one
// connection, and an interactive transaction holds a mutex from BEGIN until its commit() or
// rollback() is called:
//
// 1. The mutex leaks when a transaction cannot end. Prisma sends "COMMIT" (or "ROLLBACK") as a query and
//    calls the adapter's commit() only if that query succeeded; when COMMIT fails — "database or disk
//    is full" is the usual cause — the mutex is never released and every later transaction waits
//    for ever (the dashboard froze, and stayed frozen after space was freed). A BEGIN that throws
//    leaks it the same way. Here a failed BEGIN, COMMIT or ROLLBACK releases it, after rolling back
//    whatever SQLite left open.
// 2. Plain queries do not take the mutex, so a write made outside a transaction while another one is
//    open joins it — and is undone with it when it rolls back (an audit row or a DROP vanished that
//    way). Here plain queries wait for an open transaction to end. Code inside a `$transaction`
//    callback must use its `tx`: a plain query there waits for the transaction's own timeout.
// 3. Its BEGIN is deferred: a transaction that reads, then writes, while another process (the CLI, a
//    worker, a seed script) committed in between, fails with SQLITE_BUSY_SNAPSHOT, which no busy timeout
//    waits out. Here transactions begin IMMEDIATE: they take the write lock first, waiting for it as any
//    writer does (the busy timeout).
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

type Adapter = Awaited<ReturnType<PrismaBetterSQLite3["connect"]>>;
type Tx = Awaited<ReturnType<Adapter["startTransaction"]>>;
type Query = Parameters<Adapter["queryRaw"]>[0];

/** One holder at a time, first come first served. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();

  async acquire(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const before = this.tail;
    this.tail = before.then(() => held);
    await before;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      release();
    };
  }
}

const q = (sql: string): Query => ({ sql, args: [], argTypes: [] });

function serialize(inner: Adapter): Adapter {
  const mutex = new Mutex();
  const exclusive = async <T>(fn: () => Promise<T>): Promise<T> => {
    const release = await mutex.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  };
  /** After a failed COMMIT or BEGIN, SQLite may have left a transaction open on the connection. */
  const rollbackQuietly = () => inner.executeRaw(q("ROLLBACK")).catch(() => undefined);

  const adapter: Adapter = Object.create(inner) as Adapter;
  adapter.queryRaw = (query) => exclusive(() => inner.queryRaw(query));
  adapter.executeRaw = (query) => exclusive(() => inner.executeRaw(query));
  adapter.executeScript = (script) => exclusive(() => inner.executeScript(script));
  adapter.dispose = () => inner.dispose();
  adapter.startTransaction = async (isolationLevel) => {
    if (isolationLevel && isolationLevel !== "SERIALIZABLE") return inner.startTransaction(isolationLevel);
    const release = await mutex.acquire();
    try {
      await inner.executeRaw(q("BEGIN IMMEDIATE")).catch(async (err: unknown) => {
        // "cannot start a transaction within a transaction": one was left open; end it and begin again.
        await rollbackQuietly();
        await inner.executeRaw(q("BEGIN IMMEDIATE")).catch(() => {
          throw err;
        });
      });
    } catch (err) {
      release();
      throw err;
    }
    const tx: Tx = {
      provider: inner.provider,
      adapterName: inner.adapterName,
      options: { usePhantomQuery: false },
      queryRaw: (query) => inner.queryRaw(query),
      executeRaw: async (query) => {
        try {
          return await inner.executeRaw(query);
        } catch (err) {
          // Prisma ends a transaction by sending COMMIT or ROLLBACK and calls commit()/rollback() only if
          // that succeeded: a failed one must release the connection here, or nothing ever runs again.
          if (/^\s*(COMMIT|ROLLBACK)\b/i.test(query.sql)) {
            await rollbackQuietly();
            release();
          }
          throw err;
        }
      },
      commit: async () => release(),
      rollback: async () => release(),
    };
    return tx;
  };
  return adapter;
}

/** The better-sqlite3 adapter factory, serialized and leak-free (see the header). */
export function sqliteAdapter(config: ConstructorParameters<typeof PrismaBetterSQLite3>[0]): PrismaBetterSQLite3 {
  const factory = new PrismaBetterSQLite3(config);
  const connect = factory.connect.bind(factory);
  factory.connect = async () => serialize(await connect());
  return factory;
}
