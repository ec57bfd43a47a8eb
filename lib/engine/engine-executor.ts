import type { Executor } from "../ssh";

/** What the engine asks of an SSH executor; tests pass a recording one. */
export type EngineExecutor = Pick<Executor, "run" | "upload" | "forward" | "close" | "disconnect">;
