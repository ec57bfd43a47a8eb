// The production server: `node server.js [-H HOST] [-p PORT]` (npm start). Next.js's own request
// handler behind a plain Node HTTP server, for one thing Next.js does not give route handlers: the
// TCP peer's address. Every request gets it in x-bootdeck-peer under a random per-process stamp that
// no client can know (a client's own x-bootdeck-peer is overwritten); lib/http/client-address.ts
// believes the header only with that stamp, and X-Forwarded-For only from BOOTDECK_TRUSTED_PROXIES.
const http = require("node:http");
const { randomBytes } = require("node:crypto");
const { parseArgs } = require("node:util");
const next = require("next");

const { values } = parseArgs({ options: { hostname: { type: "string", short: "H" }, port: { type: "string", short: "p" } } });
const port = Number(values.port ?? process.env.PORT ?? 3000);
const hostname = values.hostname;
process.env.NODE_ENV ??= "production";

const stamp = randomBytes(16).toString("hex");
globalThis[Symbol.for("bootdeck.peerStamp")] = stamp;

const app = next({ dev: false, dir: __dirname, hostname: hostname ?? "localhost", port });
const handle = app.getRequestHandler();

app.prepare().then(
  () => {
    const server = http.createServer((req, res) => {
      req.headers["x-bootdeck-peer"] = `${stamp} ${req.socket.remoteAddress ?? ""}`;
      handle(req, res);
    });
    server.listen(port, hostname, () => console.log(`Bootdeck ready on http://${hostname ?? "localhost"}:${port}`));
    // Like `next start`: leave at once (open event streams would hold a graceful close; runs resume by lease).
    for (const signal of ["SIGTERM", "SIGINT"]) process.once(signal, () => process.exit(0));
  },
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
