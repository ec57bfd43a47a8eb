import "server-only";
// The funnel every route handler goes through: who is asking, may they, parse the input, call one
// function in lib/, and map errors to a status and a safe message. Plain Web Request/Response, so
// nothing here depends on Next.js.
import { z } from "zod";
import { can, type Permission } from "../auth/roles";
import { getSessionUser, sessionCookie, type SessionUser } from "../auth/sessions";
import { AppError, ValidationError, forbidden, unauthorized } from "./errors";

export type RouteContext<P> = { req: Request; user: SessionUser; params: P; ip: string | undefined };
type NextContext = { params: Promise<Record<string, string | string[]>> };

export const defaultBodyLimit = 1024 * 1024;

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return undefined;
}

export function clientIp(req: Request): string | undefined {
  return req.headers.get("x-forwarded-for")?.split(",")[0]?.trim() || req.headers.get("x-real-ip") || undefined;
}

const mutating = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Wraps a handler: signed-in user with `permission`, CSRF token on mutations, params parsed with
 * `params` (404 on mismatch), errors mapped through `errorResponse`.
 */
export function route<P extends z.ZodType = z.ZodType<Record<string, never>>>(
  options: { permission: Permission; params?: P },
  handler: (ctx: RouteContext<z.output<P>>) => Promise<Response>,
): (req: Request, ctx: NextContext) => Promise<Response> {
  return async (req, ctx) => {
    try {
      const user = await getSessionUser(readCookie(req, sessionCookie));
      if (!user) throw unauthorized();
      if (mutating.has(req.method) && req.headers.get("x-csrf-token") !== user.csrfToken)
        throw new AppError(403, "csrf", "Missing or stale CSRF token; reload the page and try again");
      if (!can(user.role, options.permission)) throw forbidden(describe(options.permission));
      const raw = (await ctx?.params) ?? {};
      const parsed = (options.params ?? z.object({})).safeParse(raw);
      if (!parsed.success) throw new AppError(404, "not_found", "Not found");
      return await handler({ req, user, params: parsed.data as z.output<P>, ip: clientIp(req) });
    } catch (err) {
      return errorResponse(err);
    }
  };
}

function describe(p: Permission): string {
  return p.replace(":", " ").replace("write", "change");
}

/** Reads a JSON body with a size cap and parses it with a zod schema (422 with field problems). */
export async function readJson<S extends z.ZodType>(req: Request, schema: S, limit = defaultBodyLimit): Promise<z.output<S>> {
  const text = await readText(req, limit);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new AppError(400, "bad_json", "The request body is not valid JSON");
  }
  const bad = badText(data);
  if (bad) throw new AppError(400, "bad_text", `The request contains ${bad}`);
  const parsed = schema.safeParse(data);
  if (!parsed.success)
    throw new ValidationError(parsed.error.issues.map((i) => ({ path: i.path.map(String).join(".") || "(body)", message: i.message })));
  return parsed.data;
}

/**
 * Text no field may carry: NUL characters (C strings and SQLite tools cut at them) and lone UTF-16
 * surrogates (not valid Unicode; they cannot be stored or logged faithfully).
 */
function badText(data: unknown, depth = 0): string | undefined {
  if (typeof data === "string") {
    if (data.includes("\u0000")) return "a NUL character";
    if (!isWellFormed(data)) return "text that is not valid Unicode (a lone surrogate)";
    return undefined;
  }
  if (depth > 64) return "too deeply nested data";
  if (Array.isArray(data)) {
    for (const v of data) {
      const b = badText(v, depth + 1);
      if (b) return b;
    }
  } else if (data && typeof data === "object") {
    for (const [k, v] of Object.entries(data)) {
      const b = badText(k, depth + 1) ?? badText(v, depth + 1);
      if (b) return b;
    }
  }
  return undefined;
}

const isWellFormed = (s: string): boolean => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

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

/** A Server-Sent Events response; no-transform keeps compression (and any proxy) from buffering it. */
export function eventStream(stream: ReadableStream<Uint8Array>): Response {
  return new Response(stream, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no", connection: "keep-alive" },
  });
}

export function json(data: unknown, init: ResponseInit = {}): Response {
  return Response.json(data, { ...init, headers: { "cache-control": "no-store", ...init.headers } });
}

export function errorResponse(err: unknown): Response {
  if (err instanceof AppError) return json({ error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } }, { status: err.status });
  console.error("[bootdeck] unhandled error in a route:", err);
  return json({ error: { code: "internal", message: "Something went wrong on the server; the error was logged" } }, { status: 500 });
}
