// Reading certificates from hosts: only certificate blocks leave a host, a kubeconfig gives its client
// certificate, and a TLS port's served certificate is read through a forwarded stream.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import tls from "node:tls";
import { describe, expect, it } from "vitest";
import { certificateRow, servedCertificate } from "./expiry";
import { CERT_FILES_SCRIPT, parseCertFiles } from "./files";
import type { Executor } from "../ssh";

const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-certs-"));
const make = (name: string, days: number) => {
  execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", `/CN=${name}`, "-days", String(days), "-keyout", path.join(dir, `${name}.key`), "-out", path.join(dir, `${name}.crt`)], { stdio: "ignore" });
  return { cert: readFileSync(path.join(dir, `${name}.crt`), "utf8"), key: readFileSync(path.join(dir, `${name}.key`), "utf8") };
};

describe("certificates read from a host", () => {
  it("prints only certificate blocks: a combined key+cert file keeps its key, a kubeconfig gives its client certificate", () => {
    const client = make("client", 10);
    writeFileSync(path.join(dir, "kubelet-client-current.pem"), `${client.key}${client.cert}`);
    const b64 = Buffer.from(client.cert).toString("base64");
    writeFileSync(path.join(dir, "kubelet.conf"), `users:\n- user:\n    client-certificate-data: ${b64}\n    client-key-data: ${Buffer.from(client.key).toString("base64")}\n`);
    const files = ["kubelet-client-current.pem", "kubelet.conf", "missing.crt"].map((f) => path.join(dir, f));
    const out = execFileSync("sh", ["-c", CERT_FILES_SCRIPT, "bootdeck-certs", ...files], { encoding: "utf8" });
    expect(out).not.toMatch(/PRIVATE KEY|client-key-data/);
    const found = parseCertFiles(out);
    expect([...found.keys()]).toEqual(files.slice(0, 2));
    for (const pem of found.values()) expect(pem.trim()).toBe(client.cert.trim());
    const row = certificateRow(found.get(files[0]!)!, { source: files[0]!, host: "worker-1", what: "kubelet client" });
    expect(row).toMatchObject({ subject: "CN=client", daysLeft: 9, warn: true });
  });

  it("reads what a TLS port serves through a forwarded stream", async () => {
    const served = make("served", 400);
    const server = tls.createServer({ cert: served.cert, key: served.key }, (s) => s.end());
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const port = (server.address() as net.AddressInfo).port;
    const executor = { forward: async (_h: unknown, address: string, p: number) => net.connect(p, address) } as unknown as Executor;
    try {
      const der = await servedCertificate(executor, {} as never, "127.0.0.1", port);
      const row = certificateRow(der, { source: `127.0.0.1:${port}`, host: "master-1", what: "API server serving (TLS)" });
      expect(row).toMatchObject({ subject: "CN=served", daysLeft: 399, warn: false });
      expect(row.serial).toBe(new (await import("node:crypto")).X509Certificate(served.cert).serialNumber);
    } finally {
      server.close();
    }
  });
});
