"use client";
import { useState } from "react";
import { parseHostCsv, parseHostLines, type LineProblem, type ParsedHost } from "@/lib/cluster/host-lines";
import { emptyHost, formatLabels, newKey, type Draft, type DraftCredential, type DraftHost } from "./draft";
import { Field, FieldErrors, inputClass } from "./fields";

type Props = {
  draft: Draft;
  update: (d: Partial<Draft>) => void;
  errorsAt: (path: string) => string[] | undefined;
  errorsUnder: (prefix: string) => string[];
  /** A blank row was added (its problems wait until it is left). */
  onAddBlank: (key: string) => void;
  /** Focus left a field of this row. */
  onLeaveRow: (key: string) => void;
};

/** The name a new host of this role would get: master-2 when master-1 exists. */
function nextName(role: string, hosts: readonly DraftHost[]): string {
  const taken = new Set(hosts.map((h) => h.name.trim()));
  for (let n = 1; ; n++) if (!taken.has(`${role}-${n}`)) return `${role}-${n}`;
}

function toDraftHost(h: ParsedHost): DraftHost {
  return { ...emptyHost(h.role), name: h.name, address: h.address, port: h.port ? String(h.port) : "", user: h.user ?? "", labels: formatLabels(h.labels) };
}

export function HostsStep({ draft, update, errorsAt, errorsUnder, onAddBlank, onLeaveRow }: Props) {
  const [paste, setPaste] = useState("");
  const [problems, setProblems] = useState<LineProblem[]>([]);
  const [added, setAdded] = useState<number | null>(null);
  // Open at first (no hosts yet); then as the user leaves it — it does not close under their paste's problems.
  const [pasteOpen, setPasteOpen] = useState(draft.hosts.length === 0);
  const setHost = (key: string, patch: Partial<DraftHost>) => update({ hosts: draft.hosts.map((h) => (h.key === key ? { ...h, ...patch } : h)) });
  const setCred = (key: string, patch: Partial<DraftCredential>) =>
    update({ credentials: draft.credentials.map((c) => (c.key === key ? { ...c, ...patch } : c)) });
  const addParsed = (result: { hosts: ParsedHost[]; problems: LineProblem[] }) => {
    setProblems(result.problems);
    if (result.hosts.length) update({ hosts: [...draft.hosts, ...result.hosts.map(toDraftHost)] });
  };
  const addBlank = (role: string) => {
    const h = emptyHost(role);
    onAddBlank(h.key);
    update({ hosts: [...draft.hosts, h] });
  };
  const hostsErrors = errorsAt("spec.hosts");

  return (
    <div className="space-y-6">
      <section className="card space-y-4">
        <h3 className="font-semibold">SSH access</h3>
        <div className="grid grid-cols-3 gap-4">
          <Field label="Default user" htmlFor="ssh-user" errors={errorsAt("spec.ssh.user")}>
            <input id="ssh-user" className={inputClass(errorsAt("spec.ssh.user"))} value={draft.sshUser} onChange={(e) => update({ sshUser: e.target.value })} />
          </Field>
          <Field label="Default port" htmlFor="ssh-port" errors={errorsAt("spec.ssh.port")}>
            <input id="ssh-port" className={inputClass(errorsAt("spec.ssh.port"))} value={draft.sshPort} onChange={(e) => update({ sshPort: e.target.value })} />
          </Field>
          <Field label="Default credential" htmlFor="ssh-credential" errors={errorsAt("spec.ssh.credential")}>
            <select id="ssh-credential" className={inputClass(errorsAt("spec.ssh.credential"))} value={draft.sshCredential} onChange={(e) => update({ sshCredential: e.target.value })}>
              <option value="">(none)</option>
              {draft.credentials.map((c) => (
                <option key={c.key} value={c.name}>
                  {c.name}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <p className="text-xs text-slate-500">Non-root users run commands through sudo -n; secrets are encrypted at rest and never shown again (only fingerprints).</p>
        {draft.credentials.map((c, i) => {
          const base = `spec.credentials[${i}]`;
          return (
            <div key={c.key} className="rounded-md border border-slate-200 p-3" data-testid={`credential-${i}`}>
              <div className="grid grid-cols-3 gap-4">
                <Field label="Credential name" htmlFor={`cred-${i}-name`} errors={errorsAt(`${base}.name`)}>
                  <input id={`cred-${i}-name`} className={inputClass(errorsAt(`${base}.name`))} value={c.name} onChange={(e) => setCred(c.key, { name: e.target.value })} />
                </Field>
                <Field label="Type" htmlFor={`cred-${i}-type`}>
                  <select id={`cred-${i}-type`} className="input" value={c.type} onChange={(e) => setCred(c.key, { type: e.target.value as DraftCredential["type"] })}>
                    <option value="privateKey">Private key</option>
                    <option value="password">Password</option>
                    <option value="agent">SSH agent</option>
                  </select>
                </Field>
                <div className="flex items-end justify-end">
                  <button type="button" className="btn" onClick={() => update({ credentials: draft.credentials.filter((x) => x.key !== c.key) })}>
                    Remove credential
                  </button>
                </div>
              </div>
              {c.stored && <p className="mt-2 text-xs text-slate-600">Stored secret{c.storedFingerprint ? `: ${c.storedFingerprint}` : ""}. Leave empty to keep it.</p>}
              {c.type === "privateKey" && (
                <div className="mt-3 grid grid-cols-3 gap-4">
                  <div className="col-span-2">
                    <Field label="Private key" htmlFor={`cred-${i}-key`} errors={errorsAt(`secrets.${c.name}.privateKey`)} hint="Paste it, or load a file. Ed25519, ECDSA and RSA keys in OpenSSH or PEM format.">
                      <textarea id={`cred-${i}-key`} rows={3} className={`${inputClass(errorsAt(`secrets.${c.name}.privateKey`))} font-mono text-xs`} value={c.privateKey} placeholder="-----BEGIN OPENSSH PRIVATE KEY-----" onChange={(e) => setCred(c.key, { privateKey: e.target.value })} />
                    </Field>
                    <input type="file" className="mt-1 text-xs" aria-label="Load private key file" onChange={async (e) => { const f = e.target.files?.[0]; if (f) setCred(c.key, { privateKey: await f.text() }); }} />
                  </div>
                  <Field label="Passphrase (optional)" htmlFor={`cred-${i}-passphrase`} errors={errorsAt(`secrets.${c.name}.passphrase`)}>
                    <input id={`cred-${i}-passphrase`} type="password" className={inputClass(errorsAt(`secrets.${c.name}.passphrase`))} value={c.passphrase} onChange={(e) => setCred(c.key, { passphrase: e.target.value })} />
                  </Field>
                </div>
              )}
              {c.type === "password" && (
                <div className="mt-3 w-1/3">
                  <Field label="Password" htmlFor={`cred-${i}-password`} errors={errorsAt(`secrets.${c.name}.password`)}>
                    <input id={`cred-${i}-password`} type="password" className={inputClass(errorsAt(`secrets.${c.name}.password`))} value={c.password} onChange={(e) => setCred(c.key, { password: e.target.value })} />
                  </Field>
                </div>
              )}
            </div>
          );
        })}
        <button type="button" className="btn" onClick={() => update({ credentials: [...draft.credentials, { key: newKey(), name: `key-${draft.credentials.length + 1}`, type: "privateKey", privateKey: "", passphrase: "", password: "" }] })}>
          Add credential
        </button>
      </section>

      <section className="card space-y-3">
        <div className="flex items-center justify-between">
          <h3 className="font-semibold">
            Hosts <span className="text-sm font-normal text-slate-500" data-testid="host-count">({draft.hosts.length}: {draft.hosts.filter((h) => h.role === "master").length} masters)</span>
          </h3>
          <div className="flex gap-2">
            <button type="button" className="btn" id="add-master" data-testid="add-master" onClick={() => addBlank("master")}>
              Add master
            </button>
            <button type="button" className="btn" data-testid="add-worker" onClick={() => addBlank("worker")}>
              Add worker
            </button>
          </div>
        </div>
        <FieldErrors id="hosts" errors={hostsErrors} />
        {draft.hosts.length > 0 && (
          <div className="overflow-x-auto">
            <table className="min-w-full text-sm" data-testid="hosts-table">
              <thead className="text-left text-xs uppercase text-slate-500">
                <tr>
                  <th className="p-1">Name</th><th className="p-1">Address</th><th className="p-1">Port</th><th className="p-1">Role</th><th className="p-1">User</th><th className="p-1">Credential</th><th className="p-1">Labels (k=v,…)</th><th className="p-1">Bastion (user@host:port)</th><th />
                </tr>
              </thead>
              <tbody>
                {draft.hosts.map((h, i) => {
                  const e = (f: string) => errorsUnder(`spec.hosts[${i}].${f}`);
                  const cell = (f: keyof DraftHost, width: string, placeholder = "") => (
                    <td className={`p-1 align-top ${width}`}>
                      <input
                        id={`host-${i}-${f}`}
                        aria-label={`host ${i + 1} ${f}`}
                        data-testid={`host-${i}-${f}`}
                        className={inputClass(e(f))}
                        value={h[f]}
                        placeholder={placeholder}
                        onChange={(ev) => setHost(h.key, { [f]: ev.target.value })}
                        onBlur={() => onLeaveRow(h.key)}
                      />
                      <FieldErrors id={`host-${i}-${f}`} errors={e(f)} />
                    </td>
                  );
                  return (
                    <tr key={h.key} className="border-t border-slate-100">
                      {cell("name", "w-36", h.name ? "" : nextName(h.role, draft.hosts))}
                      {cell("address", "w-44", "10.0.0.11")}
                      {cell("port", "w-20", draft.sshPort)}
                      <td className="p-1 align-top">
                        <select id={`host-${i}-role`} aria-label={`host ${i + 1} role`} data-testid={`host-${i}-role`} className="input" value={h.role} onChange={(ev) => setHost(h.key, { role: ev.target.value })} onBlur={() => onLeaveRow(h.key)}>
                          <option value="master">master</option>
                          <option value="worker">worker</option>
                        </select>
                      </td>
                      {cell("user", "w-24", draft.sshUser)}
                      {cell("credential", "w-28", draft.sshCredential)}
                      {cell("labels", "w-44")}
                      {cell("bastion", "w-44")}
                      <td className="p-1 align-top">
                        <button type="button" className="btn" aria-label={`remove host ${i + 1}`} onClick={() => update({ hosts: draft.hosts.filter((x) => x.key !== h.key) })}>
                          ✕
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
        <details className="rounded-md border border-slate-200 p-3" open={pasteOpen} onToggle={(e) => setPasteOpen(e.currentTarget.open)}>
          <summary className="cursor-pointer text-sm font-medium" data-testid="paste-toggle">
            Paste many hosts, or import CSV
          </summary>
          <p className="mt-2 text-xs text-slate-500">
            One host per line: <code>address[:port] role [user] [key=value,…]</code>, e.g. <code>10.0.0.11 master</code> or <code>node-7.dc1.example.com:2222 worker deploy zone=a</code>. CSV needs a header row with <code>address,role</code> and optionally <code>name,port,user,labels</code>.
          </p>
          <textarea data-testid="paste-hosts" rows={6} className="input mt-2 font-mono text-xs" value={paste} onChange={(e) => setPaste(e.target.value)} />
          <div className="mt-2 flex items-center gap-3">
            <button
              type="button"
              className="btn"
              data-testid="paste-add"
              onClick={() => {
                const result = parseHostLines(paste, draft.hosts.map((h) => h.name), draft.hosts.map((h) => h.address));
                addParsed(result);
                // What was added leaves the box; only the lines with a problem stay, to fix and add again.
                const bad = new Set(result.problems.map((p) => p.line));
                setPaste(paste.split(/\r?\n/).filter((_, i) => bad.has(i + 1)).join("\n"));
                setAdded(result.hosts.length);
              }}
            >
              Add these hosts
            </button>
            <label className="text-sm">
              <span className="mr-2">Import CSV</span>
              <input type="file" accept=".csv,text/csv" data-testid="csv-file" className="text-xs" onChange={async (e) => { const f = e.target.files?.[0]; if (f) addParsed(parseHostCsv(await f.text(), draft.hosts.map((h) => h.name))); e.target.value = ""; }} />
            </label>
          </div>
          {added !== null && (
            <p className="mt-2 text-xs text-slate-700" data-testid="paste-added">
              {added} host{added === 1 ? "" : "s"} added{problems.length ? `; the ${problems.length === 1 ? "line" : `${problems.length} lines`} below stay${problems.length === 1 ? "s" : ""} in the box to fix` : ""}.
            </p>
          )}
          {problems.length > 0 && (
            <ul className="mt-2 text-xs text-red-600" data-testid="paste-problems">
              {problems.map((p) => (
                <li key={`${p.line}-${p.message}`}>line {p.line}: {p.message}</li>
              ))}
            </ul>
          )}
        </details>
      </section>
    </div>
  );
}
