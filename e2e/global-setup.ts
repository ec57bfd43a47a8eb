import type { FullConfig } from "@playwright/test";

// Refuses to run against anything but this machine's loopback: the suite creates and deletes data.
export default function globalSetup(config: FullConfig): void {
  for (const project of config.projects) {
    const base = project.use.baseURL ?? "";
    const host = new URL(base).hostname;
    if (host !== "127.0.0.1" && host !== "localhost") throw new Error(`e2e: refusing to run against ${base}; only the local test server is allowed`);
  }
}
