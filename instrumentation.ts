// Next.js start-up hook: the dashboard process runs the engine worker unless told not to
// (BOOTDECK_ENGINE=off, for deployments that run `bootdeck worker` processes instead).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startEngineFromEnv } = await import("./lib/engine/start");
  const { handleShutdownSignals } = await import("./lib/shutdown");
  startEngineFromEnv();
  // SIGTERM ends the event streams (so the server's close does not wait for viewers) and hands the
  // engine's runs over; Next.js then exits by itself.
  handleShutdownSignals({ exit: false });
}
