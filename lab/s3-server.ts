// A real S3 server for the tests: SeaweedFS's `weed server -s3` on loopback, built from the Go module
// proxy into the lab's component cache on first use (like every lab component), with an identities file
// that gives an admin key (read, list, write) and a read-only key. Each call starts its own server on
// free ports in a temporary directory; stop() ends it and removes the directory. Test bed only.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { CreateBucketCommand, DeleteObjectCommand, ListBucketsCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { ensureComponent, type Log } from "./upstream/build";
import { seaweedfsComponent } from "./upstream/components";

export type S3Key = { accessKeyId: string; secretAccessKey: string };

export type S3TestServer = {
  endpoint: string;
  /** Read, list and write (which includes delete) on every bucket. */
  admin: S3Key;
  /** Read and list only. */
  reader: S3Key;
  createBucket(name: string): Promise<void>;
  /** The server's log (for a failing test's message). */
  log(): string;
  stop(): Promise<void>;
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

const key = (): S3Key => ({ accessKeyId: `BD${randomBytes(9).toString("hex").toUpperCase()}`, secretAccessKey: randomBytes(30).toString("base64url") });

/** The weed binary, built into the cache when missing (several minutes on 2 cores the first time). */
export async function weedBinary(log: Log = (l) => console.log(`[seaweedfs] ${l}`)): Promise<string> {
  let built;
  try {
    built = await ensureComponent(seaweedfsComponent(), log);
  } catch (err) {
    throw new Error(`the S3 tests need SeaweedFS's weed, built from the Go module proxy, and building it failed (run \`bootdeck lab binaries\`'s Go setup first: Go 1.26 at /usr/local/go, network to proxy.golang.org): ${err instanceof Error ? err.message : String(err)}`);
  }
  const bin = built.binaries.weed?.path;
  if (!bin || !fs.existsSync(bin)) throw new Error(`the cached SeaweedFS build in ${built.dir} has no bin/weed: remove that directory and run the test again`);
  return bin;
}

export async function startS3Server(opts: { log?: Log; timeoutMs?: number } = {}): Promise<S3TestServer> {
  const bin = await weedBinary(opts.log);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bootdeck-s3-"));
  const admin = key();
  const reader = key();
  fs.writeFileSync(
    path.join(dir, "s3.json"),
    JSON.stringify({
      identities: [
        { name: "bootdeck-admin", credentials: [admin].map((k) => ({ accessKey: k.accessKeyId, secretKey: k.secretAccessKey })), actions: ["Admin", "Read", "List", "Tagging", "Write"] },
        { name: "bootdeck-reader", credentials: [reader].map((k) => ({ accessKey: k.accessKeyId, secretKey: k.secretAccessKey })), actions: ["Read", "List"] },
      ],
    }),
    { mode: 0o600 },
  );
  const [master, masterGrpc, volume, volumeGrpc, filer, filerGrpc, s3, s3Grpc] = await Promise.all(Array.from({ length: 8 }, freePort));
  fs.mkdirSync(path.join(dir, "data"));
  const args = [
    "server",
    "-ip=127.0.0.1",
    "-ip.bind=127.0.0.1",
    `-dir=${path.join(dir, "data")}`,
    `-master.port=${master}`,
    `-master.port.grpc=${masterGrpc}`,
    "-master.volumeSizeLimitMB=64",
    "-master.telemetry=false",
    `-volume.port=${volume}`,
    `-volume.port.grpc=${volumeGrpc}`,
    "-volume.max=16",
    "-filer",
    `-filer.port=${filer}`,
    `-filer.port.grpc=${filerGrpc}`,
    `-filer.localSocket=${path.join(dir, "filer.sock")}`,
    "-s3",
    `-s3.port=${s3}`,
    `-s3.port.grpc=${s3Grpc}`,
    "-s3.port.iceberg=0",
    "-s3.port.lance=0",
    `-s3.localSocket=${path.join(dir, "s3.sock")}`,
    `-s3.config=${path.join(dir, "s3.json")}`,
    // Like S3: a bucket exists only once created (SeaweedFS would make one on an admin's first upload).
    "-s3.autoCreateBucket=false",
  ];
  const out = fs.openSync(path.join(dir, "weed.log"), "a");
  const child: ChildProcess = spawn(bin, args, { cwd: dir, stdio: ["ignore", out, out], detached: false });
  fs.closeSync(out);
  const readLog = () => {
    try {
      return fs.readFileSync(path.join(dir, "weed.log"), "utf8").slice(-4000);
    } catch {
      return "";
    }
  };
  let exited: string | undefined;
  child.once("exit", (code, signal) => (exited = `weed exited (${signal ?? code})`));
  const endpoint = `http://127.0.0.1:${s3}`;
  const client = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials: { ...admin }, maxAttempts: 1, requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED" });
  const stop = async () => {
    client.destroy();
    if (!exited && child.pid) {
      child.kill("SIGTERM");
      const gone = new Promise<void>((r) => child.once("exit", () => r()));
      const t = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await gone;
      clearTimeout(t);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (opts.timeoutMs ?? 90_000);
  let why = "";
  // Up when a write goes through: the gateway answers before the volume server has writable volumes.
  for (;;) {
    if (exited) {
      const log = readLog();
      await stop();
      throw new Error(`SeaweedFS did not start: ${exited}; its log:\n${log}`);
    }
    try {
      await client.send(new ListBucketsCommand({}));
      await client.send(new CreateBucketCommand({ Bucket: "bootdeck-ready" })).catch((err: unknown) => {
        if ((err as { name?: string }).name !== "BucketAlreadyOwnedByYou" && (err as { name?: string }).name !== "BucketAlreadyExists") throw err;
      });
      await client.send(new PutObjectCommand({ Bucket: "bootdeck-ready", Key: "probe", Body: "ready" }));
      await client.send(new DeleteObjectCommand({ Bucket: "bootdeck-ready", Key: "probe" }));
      break;
    } catch (err) {
      why = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() > deadline) {
      const log = readLog();
      await stop();
      throw new Error(`SeaweedFS's S3 gateway did not answer at ${endpoint} within ${(opts.timeoutMs ?? 90_000) / 1000} s (last: ${why}); its log:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    endpoint,
    admin,
    reader,
    async createBucket(name) {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    },
    log: readLog,
    stop,
  };
}
