/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native modules and SSH stay outside the bundle; they are loaded by Node at run time.
  serverExternalPackages: ["better-sqlite3", "ssh2", "cpu-features", "@prisma/adapter-better-sqlite3"],
  poweredByHeader: false,
  // The test command type-checks the whole tree once (npm run typecheck); the build need not repeat it.
  typescript: { ignoreBuildErrors: true },
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Content-Security-Policy", value: "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'" },
        ],
      },
    ];
  },
  typedRoutes: false,
};
module.exports = nextConfig;
