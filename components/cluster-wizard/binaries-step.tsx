"use client";
// The "Binaries & images" step: where hosts download Kubernetes and the container runtime from, and
// where they pull images from.
import type { Draft, DraftCredential } from "./draft";
import { sharedRegistryCredential } from "./draft";
import { Field, inputClass } from "./fields";

type Props = {
  draft: Draft;
  update: (patch: Partial<Draft>) => void;
  errorsAt: (path: string) => string[] | undefined;
  /** Errors of the registry's own password (its secret, or its row in spec.credentials). */
  registryPasswordErrors: string[] | undefined;
};

export function BinariesStep({ draft, update, errorsAt, registryPasswordErrors }: Props) {
  const setPassword = (patch: Partial<DraftCredential>) => update({ registryPassword: { ...draft.registryPassword, ...patch } });
  const shared = sharedRegistryCredential(draft);
  const input = (path: string, id: string, value: string, onChange: (v: string) => void, extra: { placeholder?: string; mono?: boolean; type?: string } = {}) => (
    <input
      id={id}
      data-testid={`field-${id}`}
      type={extra.type ?? "text"}
      className={`${inputClass(errorsAt(path))}${extra.mono ? " font-mono" : ""}`}
      placeholder={extra.placeholder}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );

  return (
    <div className="space-y-6">
      <section className="card space-y-4">
        <h3 className="font-semibold">Kubernetes binaries</h3>
        <p className="text-sm text-slate-600">
          Hosts download <code>kubelet</code> and <code>kubectl</code> from <code>BASE/{draft.version}/bin/linux/amd64/</code> — Kubernetes&apos; own release layout — and refuse a file whose SHA-256 differs from its pin, or from the <code>.sha256</code> published beside it. Air-gapped sites serve their own copy of that layout.
        </p>
        <Field label="Binaries base URL" htmlFor="base-url" errors={errorsAt("spec.binaries.baseUrl")} hint={<>The directory holding <code>&lt;version&gt;/bin/linux/amd64/kubelet</code>, with <code>.sha256</code> files beside them: <code>https://dl.k8s.io/release</code> or a mirror of it. Empty pins = the published <code>.sha256</code> are checked.</>}>
          {input("spec.binaries.baseUrl", "base-url", draft.baseUrl, (v) => update({ baseUrl: v }), { placeholder: "https://mirror.example.com/dl.k8s.io/release" })}
        </Field>
        <div className="grid grid-cols-2 gap-4">
          <Field label="kubelet SHA-256 (optional)" htmlFor="kubelet-sha" errors={errorsAt("spec.binaries.kubelet.sha256")}>
            {input("spec.binaries.kubelet.sha256", "kubelet-sha", draft.kubeletSha256, (v) => update({ kubeletSha256: v }), { mono: true })}
          </Field>
          <Field label="kubectl SHA-256 (optional)" htmlFor="kubectl-sha" errors={errorsAt("spec.binaries.kubectl.sha256")}>
            {input("spec.binaries.kubectl.sha256", "kubectl-sha", draft.kubectlSha256, (v) => update({ kubectlSha256: v }), { mono: true })}
          </Field>
        </div>
      </section>

      <section className="card space-y-4" data-testid="runtime-section">
        <h3 className="font-semibold">Container runtime</h3>
        <div className="grid grid-cols-2 gap-4">
          <Field label="Source" htmlFor="runtime-source" errors={errorsAt("spec.runtime.source")} hint={draft.runtimeSource === "mirror" ? "containerd and runc from the runtime mirror, the versions Bootdeck was tested with." : "containerd and runc from the hosts' package manager; preflight refuses one older than this Kubernetes version needs."}>
            <select id="runtime-source" data-testid="field-runtime-source" className={inputClass(errorsAt("spec.runtime.source"))} value={draft.runtimeSource} onChange={(e) => update({ runtimeSource: e.target.value as Draft["runtimeSource"] })}>
              <option value="mirror">Mirror</option>
              <option value="packages">Distribution packages</option>
            </select>
          </Field>
          <Field label="cgroup driver" htmlFor="cgroup-driver" errors={errorsAt("spec.runtime.cgroupDriver")} hint="Must match the hosts' init: systemd where systemd runs as PID 1, cgroupfs elsewhere (preflight checks).">
            <select id="cgroup-driver" data-testid="field-cgroup-driver" className={inputClass(errorsAt("spec.runtime.cgroupDriver"))} value={draft.cgroupDriver} onChange={(e) => update({ cgroupDriver: e.target.value as Draft["cgroupDriver"] })}>
              <option value="systemd">systemd (default)</option>
              <option value="cgroupfs">cgroupfs</option>
            </select>
          </Field>
        </div>
        {/* Shown with either source: crictl and the CNI plugins always come from here. */}
        <Field
          label="Runtime mirror URL"
          htmlFor="runtime-mirror-url"
          errors={errorsAt("spec.runtime.mirrorUrl")}
          hint={
            <>
              The base under which {draft.runtimeSource === "mirror" ? "containerd, runc, " : ""}crictl and the CNI plugins are laid out as on github.com releases: <code>URL/&lt;owner&gt;/&lt;repo&gt;/releases/download/&lt;tag&gt;/&lt;file&gt;</code>, each checked against its project&apos;s checksum file.{draft.runtimeSource === "packages" ? " crictl and the CNI plugins come from here even with packages." : ""} Empty: https://github.com.
            </>
          }
        >
          {input("spec.runtime.mirrorUrl", "runtime-mirror-url", draft.runtimeMirrorUrl, (v) => update({ runtimeMirrorUrl: v }), { placeholder: "https://github.com" })}
        </Field>
      </section>

      <section className="card space-y-4" data-testid="images-section">
        <h3 className="font-semibold">Images</h3>
        <Field
          label="Image registry (optional)"
          htmlFor="registry"
          errors={errorsAt("spec.images.registry")}
          hint={
            <>
              <code>host[:port][/path]</code>, no scheme. Every image is pulled as <code>REGISTRY/&lt;repository path&gt;</code> (<code>registry.k8s.io/pause:3.10.2</code> → <code>REGISTRY/pause:3.10.2</code>). Empty: the upstream registries.
            </>
          }
        >
          {input("spec.images.registry", "registry", draft.registry, (v) => update({ registry: v }), { placeholder: "registry.example.com:5000/k8s" })}
        </Field>
        <Field label="Registry CA (optional)" htmlFor="registry-ca" errors={errorsAt("spec.images.ca")} hint="The PEM certificate of the CA that signed the registry's certificate, when it is a private one; containerd trusts it for that registry only.">
          <textarea id="registry-ca" data-testid="field-registry-ca" rows={3} className={`${inputClass(errorsAt("spec.images.ca"))} font-mono text-xs`} placeholder="-----BEGIN CERTIFICATE-----" value={draft.registryCa} onChange={(e) => update({ registryCa: e.target.value })} />
        </Field>
        <input type="file" className="text-xs" aria-label="Load registry CA file" onChange={async (e) => { const f = e.target.files?.[0]; if (f) update({ registryCa: await f.text() }); e.target.value = ""; }} />
        <div className="grid grid-cols-2 gap-4">
          <Field label="Registry user name (optional)" htmlFor="registry-username" errors={errorsAt("spec.images.auth.username") ?? errorsAt("spec.images.auth")} hint="With a password: containerd logs in to the registry (static pods cannot use image pull secrets).">
            {input("spec.images.auth.username", "registry-username", draft.registryUsername, (v) => update({ registryUsername: v }))}
          </Field>
          <Field
            label="Registry password"
            htmlFor="registry-password"
            errors={registryPasswordErrors}
            hint={
              shared
                ? `The credential "${shared.name}" of Hosts & access holds it.`
                : draft.registryPassword.stored
                  ? "Stored encrypted. Leave empty to keep it."
                  : `Stored encrypted as the password credential "${draft.registryPassword.name}", like the SSH secrets, and never shown again; each node gets it in a file only root reads.`
            }
          >
            <input
              id="registry-password"
              data-testid="field-registry-password"
              type="password"
              autoComplete="new-password"
              disabled={!!shared}
              className={inputClass(registryPasswordErrors)}
              placeholder={draft.registryPassword.stored && !shared ? "(stored)" : ""}
              value={shared ? "" : draft.registryPassword.password}
              onChange={(e) => setPassword({ password: e.target.value })}
            />
          </Field>
        </div>
      </section>
    </div>
  );
}
