import { defineConfig } from "vitest/config";
import path from "node:path";

const UNIT_INCLUDE = ["lib/**/*.test.ts", "components/**/*.test.ts", "cli/**/*.test.ts", "lab/**/*.test.ts", "test/**/*.test.ts"];
const INTEGRATION = "**/*.integration.test.ts";
// Integration tests need root and the lab, so `npx vitest run` runs unit tests only; the integration
// project exists when asked for by name: `npx vitest run --project integration`.
const wantIntegration = process.argv.some((a, i, all) => a === "--project=integration" || (a === "--project" && all[i + 1] === "integration"));

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
    // Generous: several suites spawn processes, hash passwords or generate RSA keys, and CI machines are
    // 2 cores; a deadline here only bounds how long a hung test takes to fail.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: { name: "unit", include: UNIT_INCLUDE, exclude: ["**/node_modules/**", INTEGRATION] },
      },
      ...(wantIntegration
        ? [
            {
              extends: true as const,
              test: {
                name: "integration",
                include: [INTEGRATION],
                exclude: ["**/node_modules/**"],
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
