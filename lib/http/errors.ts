// The route funnel's errors live below every layer that raises them (lib/errors.ts); route handlers
// and the modules above lib/db and lib/auth import them from here as well.
export * from "../errors";
