/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native modules and SSH stay outside the bundle; they are loaded by Node at run time.
  serverExternalPackages: ["better-sqlite3", "ssh2", "cpu-features", "@prisma/adapter-better-sqlite3"],
  poweredByHeader: false,
  typedRoutes: false,
};
module.exports = nextConfig;
