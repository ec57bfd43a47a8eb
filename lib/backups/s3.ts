import "server-only";
// An S3-compatible bucket through AWS's own client (@aws-sdk/client-s3; multipart uploads with
// progress from @aws-sdk/lib-storage): what the backups need of it and nothing more — test a target,
// upload a file and prove it arrived intact, list, read and delete objects. Every failure names the
// operation, the bucket and the endpoint, and says which of the usual mistakes it is.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { AppError } from "../http/errors";

export type S3Target = {
  /** https://host:port; empty for AWS's own endpoint of the region. */
  endpoint: string;
  region: string;
  bucket: string;
  /** Prepended to every key (e.g. "bootdeck/"). */
  prefix: string;
  forcePathStyle: boolean;
  accessKeyId: string;
  secretAccessKey: string;
};

/** The ways a target can be wrong, each with its own message and remedy. */
export type TargetProblem = "unreachable" | "bad-credentials" | "no-bucket" | "no-permission" | "not-s3" | "error";

/**
 * A bucket operation that failed: `what` failed where, and the remedy. An AppError (422: the settings
 * given lead nowhere usable) whose message carries both, so a route or the command line shows it whole.
 */
export class S3Error extends AppError {
  constructor(
    readonly problem: TargetProblem,
    readonly what: string,
    readonly hint: string,
  ) {
    super(422, `bucket_${problem}`, `${what}; ${hint}`, { problem, hint });
    this.name = "S3Error";
  }
}

/** Multipart uploads split files into parts of this size (the ETag check below depends on it). */
export const PART_SIZE = 8 * 1024 * 1024;

export const describeTarget = (t: Pick<S3Target, "endpoint" | "region" | "bucket">) => `bucket ${t.bucket} at ${t.endpoint || `AWS S3 (${t.region})`}`;
export const objectUrl = (t: Pick<S3Target, "bucket">, key: string) => `s3://${t.bucket}/${key}`;

// The SDK warns on every process start that its releases after January 2027 need Node 22; the locked
// version runs on the Node 20 this project pins (package-lock.json), so the warning would only clutter
// every command's output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

export function s3Client(t: S3Target, opts: { attempts?: number } = {}): S3Client {
  return new S3Client({
    ...(t.endpoint ? { endpoint: t.endpoint } : {}),
    region: t.region,
    forcePathStyle: t.forcePathStyle,
    credentials: { accessKeyId: t.accessKeyId, secretAccessKey: t.secretAccessKey },
    maxAttempts: opts.attempts ?? 3,
    // S3-compatible servers differ in the checksums they accept: send and check them only where S3 requires them.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
  });
}

type SdkError = Error & { name: string; code?: string; Code?: string; $metadata?: { httpStatusCode?: number }; $response?: { body?: unknown } };

const NETWORK_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "ECONNRESET", "EPIPE", "TimeoutError", "RequestTimeout"]);
const CREDENTIAL_CODES = new Set(["InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken", "InvalidClientTokenId", "AuthorizationHeaderMalformed", "InvalidSecurity"]);

/** Maps a client error to one of the problems, with a message saying what failed where. */
export function classifyS3Error(err: unknown, t: S3Target, what: string): S3Error {
  const e = err as SdkError;
  const code = e?.Code ?? e?.code ?? e?.name ?? "";
  const status = e?.$metadata?.httpStatusCode;
  const where = describeTarget(t);
  const text = e instanceof Error ? e.message : String(err);
  if (!status && (NETWORK_CODES.has(code) || /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|ECONNRESET|socket hang up|timed? ?out|getaddrinfo/i.test(text)))
    return new S3Error("unreachable", `${what}: the endpoint ${t.endpoint || "of AWS S3"} cannot be reached (${code && code !== "Error" ? `${code}: ` : ""}${text})`, "check the endpoint's address, port and scheme (http or https), and that this machine may connect to it");
  if (!status && /certificate|self[- ]signed|SSL|TLS/i.test(text))
    return new S3Error("unreachable", `${what}: TLS with ${t.endpoint} failed (${text})`, "the endpoint's certificate is not trusted here: give NODE_EXTRA_CA_CERTS its CA, or check the address");
  if (CREDENTIAL_CODES.has(code))
    return new S3Error("bad-credentials", `${what}: ${where} refused the credentials (${code}${e.message && e.message !== code ? `: ${e.message}` : ""})`, "check the access key id and the secret key (and the region: a signature for another region is refused too)");
  if (code === "NoSuchBucket" || (status === 404 && /bucket/i.test(`${code} ${text}`)))
    return new S3Error("no-bucket", `${what}: ${where} has no bucket ${t.bucket}`, "create the bucket, or correct its name (and the path-style setting: a virtual-hosted address puts the bucket in the host name)");
  if (code === "AccessDenied" || code === "Forbidden" || status === 403)
    return new S3Error("no-permission", `${what}: ${where} denied it to access key ${t.accessKeyId} (${code || status})`, "give the key read, write, list and delete on the bucket (or on its prefix)");
  if (!status || code === "Unknown" || /Deserialization|XML|char '<'|Unexpected token/i.test(`${code} ${text}`))
    return new S3Error("not-s3", `${what}: ${t.endpoint || "the endpoint"} did not answer like an S3 server (${code ? `${code}: ` : ""}${text.slice(0, 200)})`, "check the endpoint URL: it must be the S3 API's address, not a console's");
  return new S3Error("error", `${what}: ${where} answered ${status ?? "?"} ${code}: ${text.slice(0, 300)}`, "see the storage server's logs for this request");
}

async function call<T>(t: S3Target, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof S3Error) throw err;
    throw classifyS3Error(err, t, what);
  }
}

export type TargetTest = { ok: true; message: string } | { ok: false; problem: TargetProblem; message: string; hint: string };

/**
 * Tests a target as the backups will use it: list under the prefix (a request whose error names its
 * cause, unlike HEAD), then write and delete a probe object. One attempt each: a test answers quickly.
 */
export async function testTarget(t: S3Target, probeKey: string): Promise<TargetTest> {
  const client = s3Client(t, { attempts: 1 });
  const started = Date.now();
  try {
    const listed = await call(t, "listing the bucket", () => client.send(new ListObjectsV2Command({ Bucket: t.bucket, Prefix: t.prefix, MaxKeys: 1 })));
    // A web page parses as XML too: an S3 listing names its bucket and counts its keys.
    const notS3 = (why: string) => new S3Error("not-s3", `${why}: ${t.endpoint || "the endpoint"} did not answer like an S3 server`, "check the endpoint URL: it must be the S3 API's address, not a console's");
    if (listed.Name === undefined && listed.KeyCount === undefined) throw notS3("listing the bucket");
    const key = `${t.prefix}${probeKey}`;
    const put = await call(t, `writing a probe object (${key})`, () => client.send(new PutObjectCommand({ Bucket: t.bucket, Key: key, Body: "bootdeck write probe\n", ContentType: "text/plain" })));
    if (!put.ETag) throw notS3(`writing a probe object (${key})`);
    await call(t, `deleting the probe object (${key})`, () => client.send(new DeleteObjectCommand({ Bucket: t.bucket, Key: key })));
    return { ok: true, message: `${describeTarget(t)}: listed, wrote and deleted a probe object under "${t.prefix}" in ${Date.now() - started} ms` };
  } catch (err) {
    const e = err instanceof S3Error ? err : classifyS3Error(err, t, "testing the target");
    const onProbe = /probe object/.test(e.what);
    if (e.problem === "no-permission" && onProbe) return { ok: false, problem: "no-permission", message: e.what, hint: "the key may read the bucket but not write or delete in it: give it s3:PutObject and s3:DeleteObject on the prefix" };
    return { ok: false, problem: e.problem, message: e.what, hint: e.hint };
  } finally {
    client.destroy();
  }
}

/**
 * The ETag S3 gives an object uploaded by `uploadFile`: the MD5 of its bytes when it fits one part,
 * else the MD5 of the parts' MD5s and "-N". Also the SHA-256 of the whole file.
 */
export async function expectedUpload(file: string, size: number): Promise<{ etag: string; sha256: string }> {
  const whole = createHash("sha256");
  const parts: Buffer[] = [];
  let part = createHash("md5");
  let inPart = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    whole.update(chunk);
    let off = 0;
    while (off < chunk.length) {
      const n = Math.min(chunk.length - off, PART_SIZE - inPart);
      part.update(chunk.subarray(off, off + n));
      inPart += n;
      off += n;
      if (inPart === PART_SIZE) {
        parts.push(part.digest());
        part = createHash("md5");
        inPart = 0;
      }
    }
  }
  if (inPart > 0 || parts.length === 0) parts.push(part.digest());
  const etag = size <= PART_SIZE ? parts[0]!.toString("hex") : `${createHash("md5").update(Buffer.concat(parts)).digest("hex")}-${parts.length}`;
  return { etag, sha256: whole.digest("hex") };
}

const plainEtag = (etag: string | undefined) => (etag ?? "").replace(/^W\//, "").replace(/"/g, "");

export type Uploaded = { key: string; etag: string; size: number; sha256: string; verifiedBy: "etag" | "read-back" };

/**
 * Uploads a file (multipart above PART_SIZE, two parts in flight) and proves the bucket holds exactly
 * its bytes: the ETag the bucket reports is the one computed here, or (a server whose ETags are not
 * MD5-based, as some that encrypt at rest) the object read back hashes to the file's SHA-256. Its SHA-256 is
 * also stored in the object's metadata for whoever fetches it later.
 */
export async function uploadFile(t: S3Target, key: string, file: string, size: number, opts: { onProgress?: (sent: number, total: number) => void; signal?: AbortSignal; contentType?: string } = {}): Promise<Uploaded> {
  const client = s3Client(t);
  try {
    const expected = await expectedUpload(file, size);
    const upload = new Upload({
      client,
      params: { Bucket: t.bucket, Key: key, Body: createReadStream(file), ContentType: opts.contentType ?? "application/octet-stream", Metadata: { "bootdeck-sha256": expected.sha256 } },
      partSize: PART_SIZE,
      queueSize: 2,
      leavePartsOnError: false,
      ...(opts.signal ? { abortController: abortOf(opts.signal) } : {}),
    });
    upload.on("httpUploadProgress", (p) => opts.onProgress?.(p.loaded ?? 0, p.total ?? size));
    await call(t, `uploading ${objectUrl(t, key)}`, () => upload.done());
    const head = await call(t, `reading back ${objectUrl(t, key)}`, () => client.send(new HeadObjectCommand({ Bucket: t.bucket, Key: key })));
    const got = plainEtag(head.ETag);
    if (head.ContentLength !== undefined && head.ContentLength !== size)
      throw new S3Error("error", `${objectUrl(t, key)} holds ${head.ContentLength} bytes after the upload, the file has ${size}`, "upload it again (retry the run); if it persists, the storage server truncates uploads");
    if (got === expected.etag) return { key, etag: got, size, sha256: expected.sha256, verifiedBy: "etag" };
    // Another ETag: not MD5-based (encryption at rest), or a multipart rule of the server's own. The
    // bytes decide: read back and hashed.
    const read = await readBackSha256(t, client, key);
    if (read !== expected.sha256) throw new S3Error("error", `${objectUrl(t, key)} arrived changed: read back, its SHA-256 is ${read}, the file's is ${expected.sha256} (the bucket's ETag ${got || "(none)"}, expected ${expected.etag})`, "upload it again (retry the run); if it persists, something between here and the bucket alters the data");
    return { key, etag: got, size, sha256: expected.sha256, verifiedBy: "read-back" };
  } finally {
    client.destroy();
  }
}

function abortOf(signal: AbortSignal): AbortController {
  const c = new AbortController();
  if (signal.aborted) c.abort();
  else signal.addEventListener("abort", () => c.abort(), { once: true });
  return c;
}

async function readBackSha256(t: S3Target, client: S3Client, key: string): Promise<string> {
  const out = await call(t, `reading back ${objectUrl(t, key)}`, () => client.send(new GetObjectCommand({ Bucket: t.bucket, Key: key })));
  const h = createHash("sha256");
  for await (const chunk of out.Body as Readable) h.update(chunk as Buffer);
  return h.digest("hex");
}

/** A small object (a manifest, an export). */
export async function putObject(t: S3Target, key: string, body: string | Buffer, contentType = "application/json"): Promise<void> {
  const client = s3Client(t);
  try {
    await call(t, `writing ${objectUrl(t, key)}`, () => client.send(new PutObjectCommand({ Bucket: t.bucket, Key: key, Body: body, ContentType: contentType })));
  } finally {
    client.destroy();
  }
}

/** A small object's bytes, refused past `maxBytes`. */
export async function getObjectBuffer(t: S3Target, key: string, maxBytes = 16 * 1024 * 1024): Promise<Buffer> {
  const client = s3Client(t);
  try {
    const out = await call(t, `reading ${objectUrl(t, key)}`, () => client.send(new GetObjectCommand({ Bucket: t.bucket, Key: key })));
    if ((out.ContentLength ?? 0) > maxBytes) throw new S3Error("error", `${objectUrl(t, key)} is ${out.ContentLength} bytes, more than the ${maxBytes} expected of it`, "it is not an object Bootdeck wrote; check the prefix");
    const parts: Buffer[] = [];
    let n = 0;
    for await (const chunk of out.Body as Readable) {
      n += (chunk as Buffer).length;
      if (n > maxBytes) throw new S3Error("error", `${objectUrl(t, key)} is more than the ${maxBytes} bytes expected of it`, "it is not an object Bootdeck wrote; check the prefix");
      parts.push(chunk as Buffer);
    }
    return Buffer.concat(parts);
  } finally {
    client.destroy();
  }
}

/** An object's bytes as a stream (a snapshot being fetched); `release` ends the client. */
export async function getObjectStream(t: S3Target, key: string): Promise<{ body: Readable; size: number | undefined; release: () => void }> {
  const client = s3Client(t);
  try {
    const out = await call(t, `reading ${objectUrl(t, key)}`, () => client.send(new GetObjectCommand({ Bucket: t.bucket, Key: key })));
    return { body: out.Body as Readable, size: out.ContentLength, release: () => client.destroy() };
  } catch (err) {
    client.destroy();
    throw err;
  }
}

export type ListedObject = { key: string; size: number; lastModified: Date | undefined };

/** Every object under a prefix, in key order. */
export async function listObjects(t: S3Target, prefix: string): Promise<ListedObject[]> {
  const client = s3Client(t);
  try {
    const found: ListedObject[] = [];
    let token: string | undefined;
    do {
      const page = await call(t, `listing ${objectUrl(t, prefix)}`, () => client.send(new ListObjectsV2Command({ Bucket: t.bucket, Prefix: prefix, ContinuationToken: token })));
      for (const o of page.Contents ?? []) if (o.Key) found.push({ key: o.Key, size: Number(o.Size ?? 0), lastModified: o.LastModified });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  } finally {
    client.destroy();
  }
}

/** Deletes objects one request each (DeleteObjects needs checksums not every server takes). */
export async function deleteObjects(t: S3Target, keys: readonly string[]): Promise<void> {
  if (!keys.length) return;
  const client = s3Client(t);
  try {
    for (const key of keys) await call(t, `deleting ${objectUrl(t, key)}`, () => client.send(new DeleteObjectCommand({ Bucket: t.bucket, Key: key })));
  } finally {
    client.destroy();
  }
}
