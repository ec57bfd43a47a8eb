// The bucket client against a real S3 server (SeaweedFS, built into the lab's cache on first use): a
// target test tells each way a target can be wrong apart, an upload arrives byte for byte (multipart
// with progress) and is proven so by its ETag.
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startS3Server, type S3TestServer } from "../../lab/s3-server";
import { deleteObjects, expectedUpload, getObjectBuffer, listObjects, PART_SIZE, putObject, testTarget, uploadFile, type S3Target } from "./s3";

let server: S3TestServer;
let dir: string;
let target: S3Target;

beforeAll(async () => {
  server = await startS3Server();
  await server.createBucket("bootdeck-test");
  dir = mkdtempSync(path.join(tmpdir(), "bootdeck-s3-test-"));
  target = { endpoint: server.endpoint, region: "us-east-1", bucket: "bootdeck-test", prefix: "backups/", forcePathStyle: true, ...server.admin };
}, 30 * 60_000);

afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("testing a target", () => {
  it("passes with a key that may list, write and delete, and leaves no probe behind", async () => {
    const r = await testTarget(target, "cl_x/.bootdeck-probe-1");
    expect(r).toMatchObject({ ok: true });
    expect(r.message).toMatch(/listed, wrote and deleted a probe object under "backups\/"/);
    expect(await listObjects(target, "backups/")).toEqual([]);
  });

  it("says the endpoint is unreachable when nothing listens there", async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = http.createServer().listen(0, "127.0.0.1", () => {
        const port = (s.address() as AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    const r = await testTarget({ ...target, endpoint: `http://127.0.0.1:${closed}` }, "probe");
    expect(r).toMatchObject({ ok: false, problem: "unreachable" });
    expect(r.ok ? "" : r.message).toMatch(new RegExp(`the endpoint http://127.0.0.1:${closed} cannot be reached`));
  });

  it("says the credentials are wrong, for an unknown key and for a wrong secret", async () => {
    const unknown = await testTarget({ ...target, accessKeyId: "NOSUCHKEY0000000", secretAccessKey: "x".repeat(40) }, "probe");
    expect(unknown).toMatchObject({ ok: false, problem: "bad-credentials" });
    const wrongSecret = await testTarget({ ...target, secretAccessKey: `${server.admin.secretAccessKey}x` }, "probe");
    expect(wrongSecret).toMatchObject({ ok: false, problem: "bad-credentials" });
    expect(wrongSecret.ok ? "" : wrongSecret.hint).toMatch(/access key id and the secret key/);
  });

  it("says the bucket does not exist", async () => {
    const r = await testTarget({ ...target, bucket: "no-such-bucket" }, "probe");
    expect(r).toMatchObject({ ok: false, problem: "no-bucket" });
    expect(r.ok ? "" : r.message).toMatch(/has no bucket no-such-bucket/);
  });

  it("says a key that may read but not write has no write permission", async () => {
    const r = await testTarget({ ...target, ...server.reader }, "cl_x/.bootdeck-probe-2");
    expect(r).toMatchObject({ ok: false, problem: "no-permission" });
    expect(r.ok ? "" : r.message).toMatch(/writing a probe object/);
    expect(r.ok ? "" : r.hint).toMatch(/may read the bucket but not write/);
  });

  it("says an endpoint that is not S3 is not S3", async () => {
    const web = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html><body>a console</body></html>");
    });
    await new Promise<void>((r) => web.listen(0, "127.0.0.1", () => r()));
    try {
      const r = await testTarget({ ...target, endpoint: `http://127.0.0.1:${(web.address() as AddressInfo).port}` }, "probe");
      expect(r).toMatchObject({ ok: false, problem: "not-s3" });
    } finally {
      web.close();
    }
  });
});

describe("uploading a file", () => {
  it("uploads a multipart file with progress and proves it arrived by its ETag", async () => {
    const data = randomBytes(2 * PART_SIZE + 12345);
    const file = path.join(dir, "big.snapshot");
    writeFileSync(file, data);
    const seen: number[] = [];
    const up = await uploadFile(target, "backups/cl_x/big.snapshot", file, data.length, { onProgress: (sent) => seen.push(sent) });
    expect(up.verifiedBy).toBe("etag");
    expect(up.etag).toMatch(/^[0-9a-f]{32}-3$/);
    expect(up.sha256).toBe(createHash("sha256").update(data).digest("hex"));
    expect(seen.at(-1)).toBe(data.length);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const back = await getObjectBuffer(target, "backups/cl_x/big.snapshot", 64 * 1024 * 1024);
    expect(back.equals(data)).toBe(true);
  });

  it("computes a single part's ETag as the MD5 of the bytes", async () => {
    const data = randomBytes(1000);
    const file = path.join(dir, "small.snapshot");
    writeFileSync(file, data);
    expect((await expectedUpload(file, data.length)).etag).toBe(createHash("md5").update(data).digest("hex"));
    const up = await uploadFile(target, "backups/cl_x/small.snapshot", file, data.length);
    expect(up).toMatchObject({ verifiedBy: "etag", etag: createHash("md5").update(data).digest("hex"), size: 1000 });
  });

  it("lists and deletes what it wrote", async () => {
    await putObject(target, "backups/cl_y/a.json", "{}");
    expect((await listObjects(target, "backups/cl_y/")).map((o) => o.key)).toEqual(["backups/cl_y/a.json"]);
    await deleteObjects(target, ["backups/cl_y/a.json"]);
    expect(await listObjects(target, "backups/cl_y/")).toEqual([]);
  });
});
