"use client";
// The browser's one way to call the API: JSON in and out, the CSRF token on mutations, and errors
// as ApiError with the server's field problems.
import type { Problem } from "@/lib/cluster/definition";
import { loginUrlFor } from "@/lib/nav/next-path";

let csrfToken = "";
export function setCsrfToken(token: string): void {
  csrfToken = token;
}
/** For requests that need the raw response (a file download) rather than JSON. */
export function getCsrfToken(): string {
  return csrfToken;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: Problem[] = [],
    readonly warnings: Problem[] = [],
  ) {
    super(message);
  }
}

/** `body` is sent as JSON; `text` as it is (a file's content, say a report). */
export async function api<T>(path: string, init: { method?: string; body?: unknown; text?: string } = {}): Promise<T> {
  const method = init.method ?? "GET";
  const res = await fetch(path, {
    method,
    headers: {
      ...(init.body !== undefined ? { "content-type": "application/json" } : init.text !== undefined ? { "content-type": "text/plain; charset=utf-8" } : {}),
      ...(method !== "GET" ? { "x-csrf-token": csrfToken } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : init.text,
    credentials: "same-origin",
  });
  const data = (await res.json().catch(() => ({}))) as { error?: { code: string; message: string; details?: { errors?: Problem[]; warnings?: Problem[] } } };
  if (!res.ok) {
    if (res.status === 401 && path !== "/api/auth/login" && typeof window !== "undefined") window.location.href = loginUrlFor(`${window.location.pathname}${window.location.search}${window.location.hash}`);
    const e = data.error;
    throw new ApiError(res.status, e?.code ?? "http", e?.message ?? `Request failed (${res.status})`, e?.details?.errors, e?.details?.warnings);
  }
  return data as T;
}
