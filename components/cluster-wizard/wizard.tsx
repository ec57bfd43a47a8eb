"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { controlPlaneModeHelp, validateClusterDefinition, type ControlPlaneMode, type Problem } from "@/lib/cluster/definition";
import { defaultDnsServiceIp, deriveCluster } from "@/lib/cluster/derive";
import { queryKeys } from "@/lib/clusters/schemas";
import { versionChoiceLabel, versionProfiles } from "@/lib/cluster/versions";
import { api, ApiError } from "../api-client";
import { toDefinition, toSecrets, type Draft } from "./draft";
import { Field, FieldErrors, inputClass } from "./fields";
import { HostsStep } from "./hosts-step";
import { describeMessage, describePath, fieldIdOf, stepOfPath, steps, type StepId } from "./steps";

type Props = { initial: Draft; clusterId?: string };

/** Client-side mirror of the server's secret rule: a key or password is needed unless one is stored. */
function secretProblems(d: Draft): Problem[] {
  return d.credentials.flatMap((c): Problem[] => {
    if (c.stored || c.type === "agent") return [];
    if (c.type === "privateKey" && !c.privateKey.trim()) return [{ path: `secrets.${c.name}.privateKey`, message: "is required: paste or upload the private key" }];
    if (c.type === "password" && !c.password) return [{ path: `secrets.${c.name}.password`, message: "is required for a password credential" }];
    return [];
  });
}

export function ClusterWizard({ initial, clusterId }: Props) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(initial);
  const [step, setStep] = useState<StepId>("basics");
  const [shown, setShown] = useState<Set<StepId>>(new Set());
  const [serverProblems, setServerProblems] = useState<Problem[]>([]);
  const [serverError, setServerError] = useState<string>();
  // Host rows added blank are not red at once: their problems show once one of their fields is left,
  // or on Next and Save.
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const [focusField, setFocusField] = useState<string>();
  const update = (patch: Partial<Draft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setServerProblems([]);
  };
  const saved = useRef(false);
  const dirty = useMemo(() => JSON.stringify([toDefinition(draft), toSecrets(draft)]) !== JSON.stringify([toDefinition(initial), toSecrets(initial)]), [draft, initial]);
  useLeaveGuard(dirty && !saved.current, clusterId ? "Leave without saving your changes to this cluster?" : "Leave without creating this cluster? What you entered will be lost.");
  // A problem's link opens its step; its field is focused once that step is on screen.
  useEffect(() => {
    if (!focusField) return;
    const el = document.getElementById(focusField);
    if (el) {
      el.focus();
      el.scrollIntoView({ block: "center" });
    }
    setFocusField(undefined);
  }, [focusField, step]);

  const result = useMemo(() => validateClusterDefinition(toDefinition(draft)), [draft]);
  const problems = useMemo(
    () => [...(result.ok ? [] : result.errors), ...secretProblems(draft), ...serverProblems],
    [result, draft, serverProblems],
  );
  const freshRows = new Set(draft.hosts.flatMap((h, i) => (fresh.has(h.key) ? [`spec.hosts[${i}]`] : [])));
  const visible = problems.filter((p) => (shown.has(stepOfPath(p.path)) || serverProblems.includes(p)) && !freshRows.has(/^spec\.hosts\[\d+\]/.exec(p.path)?.[0] ?? ""));
  const errorsAt = (path: string) => {
    const list = visible.filter((p) => p.path === path).map((p) => describeMessage(p.message, draft));
    return list.length ? list : undefined;
  };
  const errorsUnder = (prefix: string) => visible.filter((p) => p.path === prefix || p.path.startsWith(`${prefix}.`) || p.path.startsWith(`${prefix}[`)).map((p) => describeMessage(p.message, draft));
  const stepHasProblems = (id: StepId) => problems.some((p) => stepOfPath(p.path) === id);
  const index = steps.findIndex((s) => s.id === step);

  const save = useMutation({
    mutationFn: () =>
      api<{ id?: string }>(clusterId ? `/api/clusters/${clusterId}` : "/api/clusters", {
        method: clusterId ? "PUT" : "POST",
        body: { definition: toDefinition(draft), secrets: toSecrets(draft) },
      }),
    onSuccess: async (data) => {
      saved.current = true;
      await queryClient.invalidateQueries({ queryKey: queryKeys.clusters() });
      router.push(`/clusters/${clusterId ?? data.id}`);
    },
    onError: (err) => {
      if (err instanceof ApiError && err.errors.length) {
        setServerProblems(err.errors);
        setShown(new Set(steps.map((s) => s.id)));
        setStep(stepOfPath(err.errors[0]!.path));
      }
      setServerError(err instanceof Error ? err.message : "Saving failed");
    },
  });

  const goto = (target: StepId) => {
    setShown((s) => new Set([...s, step]));
    setFresh(new Set());
    const here = steps.findIndex((s) => s.id === step);
    const there = steps.findIndex((s) => s.id === target);
    if (there > here && stepHasProblems(step)) return; // fix this step's problems first
    setStep(target);
  };

  return (
    <div className="space-y-4" data-testid="cluster-wizard">
      <ol className="flex gap-2">
        {steps.map((s, i) => (
          <li key={s.id}>
            <button
              type="button"
              data-testid={`step-${s.id}`}
              onClick={() => goto(s.id)}
              className={`rounded-full px-3 py-1 text-sm ${s.id === step ? "bg-indigo-600 text-white" : shown.has(s.id) && stepHasProblems(s.id) ? "bg-red-100 text-red-700" : "bg-slate-200 text-slate-700"}`}
            >
              {i + 1}. {s.title}
            </button>
          </li>
        ))}
      </ol>

      {step === "basics" && (
        <section className="card grid grid-cols-2 gap-4">
          <Field label="Cluster name" htmlFor="name" errors={errorsAt("metadata.name")} hint="A DNS label: lower-case letters, digits and '-'.">
            <input id="name" data-testid="field-name" className={inputClass(errorsAt("metadata.name"))} value={draft.name} onChange={(e) => update({ name: e.target.value })} />
          </Field>
          <Field label="Kubernetes version" htmlFor="version" errors={errorsAt("spec.kubernetes.version")}>
            <select id="version" data-testid="field-version" className={inputClass(errorsAt("spec.kubernetes.version"))} value={draft.version} onChange={(e) => update({ version: e.target.value })}>
              {versionProfiles.map((p) => (
                <option key={p.minor} value={p.defaultVersion}>
                  {versionChoiceLabel(p)}
                </option>
              ))}
              {!versionProfiles.some((p) => p.defaultVersion === draft.version) && <option value={draft.version}>{draft.version}</option>}
            </select>
          </Field>
          <Field label="Control plane" htmlFor="mode" errors={errorsAt("spec.kubernetes.controlPlane")} hint={controlPlaneModeHelp[draft.controlPlane]}>
            <select id="mode" data-testid="field-control-plane" className={inputClass(errorsAt("spec.kubernetes.controlPlane"))} value={draft.controlPlane} onChange={(e) => update({ controlPlane: e.target.value as ControlPlaneMode })}>
              <option value="self-hosted">Self-hosted (pivot to workloads)</option>
              <option value="static">Static pods on every master</option>
            </select>
          </Field>
          <div />
          <Field label="API endpoint" htmlFor="api-type" errors={errorsAt("spec.apiEndpoint.type")}>
            <select id="api-type" data-testid="field-api-type" className="input" value={draft.apiType} onChange={(e) => update({ apiType: e.target.value as Draft["apiType"] })}>
              <option value="first-master">The first master</option>
              <option value="dns">A DNS name</option>
              <option value="vip">A VIP or load balancer address</option>
            </select>
          </Field>
          <div className="grid grid-cols-3 gap-2">
            <div className="col-span-2">
              <Field label="Endpoint host" htmlFor="api-host" errors={errorsAt("spec.apiEndpoint.host")}>
                <input id="api-host" data-testid="field-api-host" className={inputClass(errorsAt("spec.apiEndpoint.host"))} disabled={draft.apiType === "first-master"} placeholder={draft.apiType === "dns" ? "api.example.com" : draft.apiType === "vip" ? "10.0.0.100" : "(first master's address)"} value={draft.apiType === "first-master" ? "" : draft.apiHost} onChange={(e) => update({ apiHost: e.target.value })} />
              </Field>
            </div>
            <Field label="Port" htmlFor="api-port" errors={errorsAt("spec.apiEndpoint.port")}>
              <input id="api-port" data-testid="field-api-port" className={inputClass(errorsAt("spec.apiEndpoint.port"))} value={draft.apiPort} onChange={(e) => update({ apiPort: e.target.value })} />
            </Field>
          </div>
        </section>
      )}

      {step === "network" && (
        <section className="card grid grid-cols-2 gap-4">
          <Field label="Pod CIDR" htmlFor="pod-cidr" errors={errorsAt("spec.network.podCidr")}>
            <input id="pod-cidr" data-testid="field-pod-cidr" className={inputClass(errorsAt("spec.network.podCidr"))} value={draft.podCidr} onChange={(e) => update({ podCidr: e.target.value })} />
          </Field>
          <Field label="Service CIDR" htmlFor="service-cidr" errors={errorsAt("spec.network.serviceCidr")}>
            <input id="service-cidr" data-testid="field-service-cidr" className={inputClass(errorsAt("spec.network.serviceCidr"))} value={draft.serviceCidr} onChange={(e) => update({ serviceCidr: e.target.value })} />
          </Field>
          <Field label="Cluster domain" htmlFor="cluster-domain" errors={errorsAt("spec.network.clusterDomain")}>
            <input id="cluster-domain" className={inputClass(errorsAt("spec.network.clusterDomain"))} value={draft.clusterDomain} onChange={(e) => update({ clusterDomain: e.target.value })} />
          </Field>
          <Field label="DNS service IP" htmlFor="dns-ip" errors={errorsAt("spec.network.dnsServiceIp")} hint={`Leave empty for the default: ${defaultDnsServiceIp(draft.serviceCidr) ?? "the service CIDR's 10th address"}.`}>
            <input id="dns-ip" data-testid="field-dns-ip" className={inputClass(errorsAt("spec.network.dnsServiceIp"))} placeholder={defaultDnsServiceIp(draft.serviceCidr) ?? ""} value={draft.dnsServiceIp} onChange={(e) => update({ dnsServiceIp: e.target.value })} />
          </Field>
          <Field label="Network provider" htmlFor="provider">
            <select id="provider" className="input" value={draft.provider} onChange={() => update({ provider: "flannel" })}>
              <option value="flannel">flannel</option>
            </select>
          </Field>
        </section>
      )}

      {step === "hosts" && (
        <HostsStep
          draft={draft}
          update={update}
          errorsAt={errorsAt}
          errorsUnder={errorsUnder}
          onAddBlank={(key) => setFresh((f) => new Set([...f, key]))}
          onLeaveRow={(key) => setFresh((f) => (f.has(key) ? new Set([...f].filter((k) => k !== key)) : f))}
        />
      )}

      {step === "binaries" && (
        <section className="card space-y-4">
          <p className="text-sm text-slate-600">
            Hosts download <code>kubelet</code> and <code>kubectl</code> from this mirror (<code>BASE/kubelet</code>, <code>BASE/kubectl</code>) and refuse a file whose SHA-256 differs — so air-gapped sites can serve their own copies.
          </p>
          <Field label="Mirror base URL" htmlFor="base-url" errors={errorsAt("spec.binaries.baseUrl")}>
            <input id="base-url" data-testid="field-base-url" className={inputClass(errorsAt("spec.binaries.baseUrl"))} placeholder="https://mirror.example.com/dl.k8s.io/release" value={draft.baseUrl} onChange={(e) => update({ baseUrl: e.target.value })} />
          </Field>
          <Field label="kubelet SHA-256" htmlFor="kubelet-sha" errors={errorsAt("spec.binaries.kubelet.sha256")}>
            <input id="kubelet-sha" data-testid="field-kubelet-sha" className={`${inputClass(errorsAt("spec.binaries.kubelet.sha256"))} font-mono`} value={draft.kubeletSha256} onChange={(e) => update({ kubeletSha256: e.target.value })} />
          </Field>
          <Field label="kubectl SHA-256" htmlFor="kubectl-sha" errors={errorsAt("spec.binaries.kubectl.sha256")}>
            <input id="kubectl-sha" data-testid="field-kubectl-sha" className={`${inputClass(errorsAt("spec.binaries.kubectl.sha256"))} font-mono`} value={draft.kubectlSha256} onChange={(e) => update({ kubectlSha256: e.target.value })} />
          </Field>
        </section>
      )}

      {step === "review" && (
        <Review
          draft={draft}
          problems={problems}
          warnings={result.warnings}
          onJump={(p) => {
            setShown(new Set(steps.map((s) => s.id)));
            setFresh(new Set());
            setStep(stepOfPath(p));
            setFocusField(fieldIdOf(p, draft));
          }}
        />
      )}

      {serverError && !serverProblems.length && (
        <p className="text-sm text-red-600" role="alert" data-testid="server-error">
          {serverError}
        </p>
      )}
      <div className="flex justify-between">
        <button type="button" className="btn" disabled={index === 0} onClick={() => setStep(steps[index - 1]!.id)} data-testid="wizard-back">
          Back
        </button>
        {step !== "review" ? (
          <button type="button" className="btn-primary" onClick={() => goto(steps[index + 1]!.id)} data-testid="wizard-next">
            Next
          </button>
        ) : (
          <button
            type="button"
            className="btn-primary"
            data-testid="wizard-save"
            disabled={save.isPending}
            onClick={() => {
              setShown(new Set(steps.map((s) => s.id)));
              setFresh(new Set());
              setServerError(undefined);
              if (problems.length === 0) save.mutate();
            }}
          >
            {save.isPending ? "Saving…" : clusterId ? "Save changes" : "Create cluster"}
          </button>
        )}
      </div>
    </div>
  );
}

function Review({ draft, problems, warnings, onJump }: { draft: Draft; problems: Problem[]; warnings: Problem[]; onJump: (path: string) => void }) {
  const result = validateClusterDefinition(toDefinition(draft));
  const derived = result.ok ? deriveCluster(result.definition) : undefined;
  const rows: [string, string][] = [
    ["Name", draft.name],
    ["Kubernetes", `${draft.version}, ${draft.controlPlane === "static" ? "control plane as static pods on every master" : "self-hosted control plane"}`],
    ["API endpoint", derived ? derived.apiServerUrl : "—"],
    ["Pod CIDR", draft.podCidr],
    ["Service CIDR", draft.serviceCidr],
    ["API service IP (derived)", derived?.apiServiceIp ?? "—"],
    ["DNS service IP", derived?.dnsServiceIp ?? "—"],
    ["Cluster domain", draft.clusterDomain],
    ["Network", draft.provider],
    ["Hosts", `${draft.hosts.filter((h) => h.role === "master").length} masters, ${draft.hosts.filter((h) => h.role === "worker").length} workers`],
    ["etcd members (derived)", derived ? derived.etcdMembers.map((m) => `${m.name} (${m.address})`).join(", ") : "—"],
    ["Binaries", draft.baseUrl],
    ["Credentials", draft.credentials.map((c) => `${c.name} (${c.type}${c.privateKey || c.password ? ", new secret" : c.stored ? ", stored" : ""})`).join(", ")],
  ];
  return (
    <section className="card space-y-4" data-testid="review">
      {problems.length > 0 && (
        <div className="rounded-md border border-red-200 bg-red-50 p-3" data-testid="review-problems">
          <p className="text-sm font-semibold text-red-700">{problems.length} problem{problems.length === 1 ? "" : "s"} to fix before saving:</p>
          <ul className="mt-1 text-sm text-red-700">
            {problems.map((p, i) => (
              <li key={`${p.path}:${p.message}`}>
                <button type="button" className="underline" onClick={() => onJump(p.path)} data-testid={`review-problem-${i}`}>
                  {describePath(p.path, draft)}
                </button>
                : {describeMessage(p.message, draft)}
              </li>
            ))}
          </ul>
        </div>
      )}
      {warnings.length > 0 && (
        <ul className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-800" data-testid="review-warnings">
          {warnings.map((w, i) => (
            <li key={`${w.path}:${w.message}`}>
              <button type="button" className="underline" onClick={() => onJump(w.path)} data-testid={`review-warning-${i}`}>
                {describePath(w.path, draft)}
              </button>
              : {describeMessage(w.message, draft)}
            </li>
          ))}
        </ul>
      )}
      <dl className="grid grid-cols-3 gap-x-4 gap-y-2 text-sm">
        {rows.map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="font-medium text-slate-600">{k}</dt>
            <dd className="col-span-2 break-all" data-testid={`review-${k.toLowerCase().replace(/[^a-z]+/g, "-")}`}>
              {v}
            </dd>
          </div>
        ))}
      </dl>
      <FieldErrors id="review" errors={undefined} />
    </section>
  );
}

/**
 * Asks before leaving a form with unsaved changes: closing or reloading the tab (the browser's own
 * prompt) and following a link inside the dashboard (a confirm dialog; the click is dropped on "Cancel").
 */
function useLeaveGuard(active: boolean, question: string): void {
  useEffect(() => {
    if (!active) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = "";
    };
    const onClick = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = (e.target as Element | null)?.closest?.("a[href]");
      if (!a || a.getAttribute("target") === "_blank" || a.hasAttribute("download")) return;
      if (!window.confirm(question)) {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    // Capture: before Next's Link handles the click.
    document.addEventListener("click", onClick, true);
    return () => {
      window.removeEventListener("beforeunload", onBeforeUnload);
      document.removeEventListener("click", onClick, true);
    };
  }, [active, question]);
}
