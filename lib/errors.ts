// Errors that carry an HTTP status and a message that is safe to show, raised by every layer (the
// database, sign-in, the engine). Anything else becomes a generic 500 in the route funnel
// (lib/http/route.ts).
import type { Problem } from "./cluster/definition";

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const notFound = (what: string) => new AppError(404, "not_found", `${what} was not found`);
export const forbidden = (action: string) => new AppError(403, "forbidden", `Your role may not ${action}`);
export const unauthorized = () => new AppError(401, "unauthorized", "Sign in first");
export const conflict = (message: string) => new AppError(409, "conflict", message);
/** The request is well-formed but cannot be carried out as asked (e.g. a plan that cannot be made). */
export const unprocessable = (message: string) => new AppError(422, "unprocessable", message);

/** Field problems, reported all at once (422). */
export class ValidationError extends AppError {
  constructor(
    readonly errors: Problem[],
    readonly warnings: Problem[] = [],
  ) {
    super(422, "invalid", `${errors.length} problem${errors.length === 1 ? "" : "s"} to fix`, { errors, warnings });
    this.name = "ValidationError";
  }
}
