import { defineConfig } from "vitest/config";
import path from "node:path";

const UNIT_INCLUDE = ["lib/**/*.test.ts", "components/**/*.test.ts", "cli/**/*.test.ts", "lab/**/*.test.ts", "test/**/*.test.ts"];
const INTEGRATION = "**/*.integration.test.ts";
// Integration tests need root and the lab, so `npx vitest run` runs unit tests only; the integration
// project exists when asked for by name: `npx vitest run --project integration`.
const wantIntegration = process.argv.some((a, i, all) => a === "--project=integration" || (a === "--project" && all[i + 1] === "integration"));
// `--exclude` on the command line reaches the root config only; each project takes it too.
const cliExcludes = process.argv.flatMap((a, i, all) => (a === "--exclude" && all[i + 1] ? [all[i + 1]!] : a.startsWith("--exclude=") ? [a.slice("--exclude=".length)] : []));

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(__dirname),
      // `server-only` throws outside React Server Components; tests run lib/ as plain Node.
      "server-only": path.resolve(__dirname, "test/server-only-stub.ts"),
    },
  },
  test: {
    environment: "node",
    pool: "forks",
    // Each file keeps its own process (vitest's default isolation). Sharing processes cut the unit stage
    // from about 320 s to 185 s, but the engine keeps process-wide holders (its LISTEN session, worker,
    // queue, storage) that then outlived a file and listened on an earlier file's database.
    // Generous: several suites spawn processes, hash passwords or generate RSA keys, and CI machines are
    // 2 cores; a deadline here only bounds how long a hung test takes to fail.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: { name: "unit", include: UNIT_INCLUDE, exclude: ["**/node_modules/**", INTEGRATION, ...cliExcludes] },
      },
      ...(wantIntegration
        ? [
            {
              extends: true as const,
              test: {
                name: "integration",
                include: [INTEGRATION],
                exclude: ["**/node_modules/**", ...cliExcludes],
                globalSetup: ["test/integration-setup.ts"],
                testTimeout: 180_000,
                // The suite shares one lab; files run one after another so fault injection in one
                // file never disturbs another.
                fileParallelism: false,
              },
            },
          ]
        : []),
    ],
  },
});
