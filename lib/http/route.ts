import "server-only";
// The funnel every route handler goes through: who is asking, may they, parse the input, call one
// function in lib/, and map errors to a status and a safe message. Plain Web Request/Response, so
// nothing here depends on Next.js.
import { createHash, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { userForRequest } from "../auth/cluster-role";
import { can, permissionText, type Permission } from "../auth/roles";
import { csrfTokenMatches, getSessionUser, readSessionToken, type SessionUser } from "../auth/sessions";
import { DatabaseFullError, isDiskFull, noteDiskFull } from "../db/storage";
import { clientAddress } from "../client-address";
import { assertKnownHost } from "./host-check";
import { AppError, ValidationError, forbidden, unauthorized } from "./errors";
import { badText, clipText } from "../text";

export type RouteContext<P> = { req: Request; user: SessionUser; params: P; ip: string | undefined };
type NextContext = { params: Promise<Record<string, string | string[]>> };

export const defaultBodyLimit = 1024 * 1024;

const mutating = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Wraps a handler: a Host the dashboard answers to, signed-in user with `permission`, CSRF token on mutations, params parsed with
 * `params` (404 on mismatch), errors mapped through `errorResponse`.
 */
export function route<P extends z.ZodType = z.ZodType<Record<string, never>>>(
  options: { permission: Permission; params?: P },
  handler: (ctx: RouteContext<z.output<P>>) => Promise<Response>,
): (req: Request, ctx: NextContext) => Promise<Response> {
  return async (req, ctx) => {
    try {
      assertKnownHost(req);
      const session = await getSessionUser(readSessionToken(req.url, req.headers));
      if (!session) throw unauthorized();
      // On a cluster's routes (and its runs') a per-cluster mapping of the user's groups may raise the role.
      const user = await userForRequest(session, req.url);
      if (mutating.has(req.method) && !csrfTokenMatches(req.headers.get("x-csrf-token"), user.csrfToken))
        throw new AppError(403, "csrf", "Missing or stale CSRF token; reload the page and try again");
      if (!can(user.role, options.permission)) throw forbidden(permissionText[options.permission]);
      const raw = (await ctx?.params) ?? {};
      const parsed = (options.params ?? z.object({})).safeParse(raw);
      if (!parsed.success) throw new AppError(404, "not_found", "Not found");
      return await handler({ req, user, params: parsed.data as z.output<P>, ip: clientAddress(req.headers) });
    } catch (err) {
      return errorResponse(err);
    }
  };
}

/**
 * A read-only route for machines: `Authorization: Bearer <token>` when `token()` names one (compared in
 * constant time), or else a signed-in user with `permission` (a person looking at /metrics). A wrong
 * token is refused, never tried as a session.
 */
export function scrapeRoute(options: { permission: Permission; token: () => string | undefined }, handler: (req: Request) => Promise<Response>): (req: Request) => Promise<Response> {
  return async (req) => {
    try {
      const auth = req.headers.get("authorization");
      if (auth !== null) {
        const expected = options.token();
        const given = /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1];
        const digest = (s: string) => createHash("sha256").update(s).digest();
        if (!expected || !given || !timingSafeEqual(digest(given), digest(expected)))
          throw new AppError(401, "unauthorized", expected ? "The bearer token is not the one configured (BOOTDECK_METRICS_TOKEN)" : "No bearer token is configured (BOOTDECK_METRICS_TOKEN); sign in instead");
        return await handler(req);
      }
      const user = await getSessionUser(readSessionToken(req.url, req.headers));
      if (!user) throw new AppError(401, "unauthorized", "Sign in first, or send Authorization: Bearer with BOOTDECK_METRICS_TOKEN");
      if (!can(user.role, options.permission)) throw forbidden(permissionText[options.permission]);
      return await handler(req);
    } catch (err) {
      const res = errorResponse(err);
      if (res.status === 401) res.headers.set("www-authenticate", 'Bearer realm="bootdeck"');
      return res;
    }
  };
}

/** Reads a JSON body with a size cap and parses it with a zod schema (422 with field problems). */
export async function readJson<S extends z.ZodType>(req: Request, schema: S, limit = defaultBodyLimit): Promise<z.output<S>> {
  return parseBody(schema, await readJsonValue(req, limit));
}

/** A JSON body with a size cap and the text rules (no NUL, no lone surrogates), not yet parsed by a schema. */
export async function readJsonValue(req: Request, limit = defaultBodyLimit): Promise<unknown> {
  const text = await readText(req, limit);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new AppError(400, "bad_json", "The request body is not valid JSON");
  }
  assertCleanText(data);
  return data;
}

/** Parses data with a zod schema: 422 with each field's problem (its echoed text clipped). */
export function parseBody<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
  const parsed = schema.safeParse(data);
  if (!parsed.success)
    throw new ValidationError(parsed.error.issues.map((i) => ({ path: clipText(i.path.map(String).join(".") || "(body)"), message: clipText(i.message) })));
  return parsed.data;
}

/** Refuses data carrying text no field may hold (400); cluster.yaml reports the same rules as a problem (lib/cluster/yaml.ts). */
export function assertCleanText(data: unknown): void {
  const bad = badText(data);
  if (bad) throw new AppError(400, "bad_text", `The request contains ${bad}`);
}

export async function readText(req: Request, limit = defaultBodyLimit): Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge(limit);
  const reader = req.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const tooLarge = (limit: number) => new AppError(413, "too_large", `The request body is larger than ${Math.round(limit / 1024)} KiB`);

/**
 * A Server-Sent Events response; no-transform keeps compression (and any proxy) from buffering it. The
 * connection closes with the stream (EventSource opens a new one to reconnect anyway): a server that is
 * shutting down ends its streams and is not then held by idle keep-alive connections of its viewers.
 */
export function eventStream(stream: ReadableStream<Uint8Array>): Response {
  return new Response(stream, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no", connection: "close" },
  });
}

export function json(data: unknown, init: ResponseInit = {}): Response {
  return Response.json(data, { ...init, headers: { "cache-control": "no-store", ...init.headers } });
}

export function errorResponse(err: unknown): Response {
  // A full disk under the database: say so at once (503), instead of a generic 500 or a hang.
  if (!(err instanceof AppError) && isDiskFull(err)) {
    noteDiskFull();
    err = new DatabaseFullError();
  }
  if (err instanceof AppError) {
    const retryAfter = (err.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
    const headers = err.status === 429 && retryAfter ? { "retry-after": String(retryAfter) } : undefined;
    return json({ error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } }, { status: err.status, headers });
  }
  console.error("[bootdeck] unhandled error in a route:", err);
  return json({ error: { code: "internal", message: "Something went wrong on the server; the error was logged" } }, { status: 500 });
}
