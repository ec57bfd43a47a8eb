// GETs URL every INTERVAL_MS, each on a new connection, and prints "<epoch ms> <status> <seconds>" per
// probe (status 000: no answer within MAX_S, refused or reset), until killed. One light process in a
// lab host's network namespace: a curl process per probe cost the 2-core machine more than the probes
// measured. Plain Node, no TypeScript: it runs under `ip netns exec`.
//   node netns-probe.mjs URL INTERVAL_MS MAX_S fixed|sequential [CERT_FILE KEY_FILE]
import { readFileSync } from "node:fs";
import https from "node:https";

const [url, intervalArg, maxArg, cadence, certFile, keyFile] = process.argv.slice(2);
const intervalMs = Number(intervalArg);
const maxMs = Number(maxArg) * 1000;
const client = certFile && keyFile ? { cert: readFileSync(certFile), key: readFileSync(keyFile) } : {};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function probe() {
  return new Promise((resolve) => {
    const at = Date.now();
    const done = (status) => {
      process.stdout.write(`${at} ${status} ${((Date.now() - at) / 1000).toFixed(3)}\n`);
      resolve();
    };
    const req = https.get(url, { rejectUnauthorized: false, agent: false, signal: AbortSignal.timeout(maxMs), ...client }, (res) => {
      res.resume();
      res.on("end", () => done(String(res.statusCode ?? 0).padStart(3, "0")));
      res.on("error", () => done("000"));
    });
    req.on("error", () => done("000"));
  });
}

for (;;) {
  const started = Date.now();
  if (cadence === "fixed") void probe();
  else await probe();
  await sleep(Math.max(0, intervalMs - (Date.now() - started)));
}
