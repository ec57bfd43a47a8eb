"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { controlPlaneModeHelp, encryptionAlgorithmNotes, encryptionAlgorithms, validateClusterDefinition, type ControlPlaneMode, type EncryptionAlgorithm, type Problem } from "@/lib/cluster/definition";
import { defaultDnsServiceIp, deriveCluster } from "@/lib/cluster/derive";
import { queryKeys } from "@/lib/clusters/schemas";
import { versionChoiceLabel, versionProfiles } from "@/lib/cluster/versions";
import { api, ApiError } from "../api-client";
import { useLeaveGuard } from "../leave-guard";
import { registryCredential, toDefinition, toSecrets, type Draft } from "./draft";
import { BinariesStep } from "./binaries-step";
import { versionFeatures } from "./features";
import { CheckField, Field, FieldErrors, inputClass } from "./fields";
import { HostsStep } from "./hosts-step";
import { reviewRows } from "./review";
import { describeMessage, describePath, fieldIdOf, stepOfPath, steps, type StepId } from "./steps";

type Props = { initial: Draft; clusterId?: string };

/** Client-side mirror of the server's secret rule: a key or password is needed unless one is stored. */
function secretProblems(d: Draft): Problem[] {
  const registry = registryCredential(d);
  return [...d.credentials, ...(registry ? [registry] : [])].flatMap((c): Problem[] => {
    if (c.stored || c.type === "agent") return [];
    if (c.type === "privateKey" && !c.privateKey.trim()) return [{ path: `secrets.${c.name}.privateKey`, message: "is required: paste or upload the private key" }];
    if (c.type === "password" && !c.password) return [{ path: `secrets.${c.name}.password`, message: c === registry ? "is required with a registry user name" : "is required for a password credential" }];
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
  const visible = problems.filter((p) => (shown.has(stepOfPath(p.path, draft)) || serverProblems.includes(p)) && !freshRows.has(/^spec\.hosts\[\d+\]/.exec(p.path)?.[0] ?? ""));
  const errorsAt = (path: string) => {
    const list = visible.filter((p) => p.path === path).map((p) => describeMessage(p.message, draft));
    return list.length ? list : undefined;
  };
  const errorsUnder = (prefix: string) => visible.filter((p) => p.path === prefix || p.path.startsWith(`${prefix}.`) || p.path.startsWith(`${prefix}[`)).map((p) => describeMessage(p.message, draft));
  /** Errors of the field with this DOM id, whatever their paths (the registry password has several). */
  const errorsOfField = (id: string) => {
    const list = visible.filter((p) => fieldIdOf(p.path, draft) === id).map((p) => describeMessage(p.message, draft));
    return list.length ? list : undefined;
  };
  const stepHasProblems = (id: StepId) => problems.some((p) => stepOfPath(p.path, draft) === id);
  const features = versionFeatures(draft.version);
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
        setStep(stepOfPath(err.errors[0]!.path, draft));
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
          <Field
            label="Key algorithm"
            htmlFor="encryption-algorithm"
            errors={errorsAt("spec.pki.encryptionAlgorithm")}
            hint={
              draft.encryptionAlgorithm
                ? `${encryptionAlgorithmNotes[draft.encryptionAlgorithm]}. Every certificate gets its own key. A running cluster keeps its algorithm: changing it needs new CAs.`
                : "The definition names none: the cluster keeps the algorithm of its asset set (RSA-2048 for one rendered before this choice existed)."
            }
          >
            <select
              id="encryption-algorithm"
              data-testid="field-encryption-algorithm"
              className={inputClass(errorsAt("spec.pki.encryptionAlgorithm"))}
              value={draft.encryptionAlgorithm}
              onChange={(e) => update({ encryptionAlgorithm: e.target.value as EncryptionAlgorithm | "" })}
            >
              {draft.encryptionAlgorithm === "" && <option value="">Keep the cluster&apos;s</option>}
              {encryptionAlgorithms.map((a) => (
                <option key={a} value={a}>
                  {a}
                  {a === "ECDSA-P256" ? " (default)" : ""}
                </option>
              ))}
            </select>
          </Field>
          <CheckField
            label="Allow cgroup v1 hosts"
            id="allow-cgroup-v1"
            checked={draft.allowCgroupV1}
            onChange={(allowCgroupV1) => update({ allowCgroupV1 })}
            errors={errorsAt("spec.kubernetes.allowCgroupV1")}
            hint={
              <>
                cgroup v1 is deprecated upstream; from 1.35 the kubelet refuses cgroup v1 hosts unless allowed. Checked: the kubelet runs on them (<code>failCgroupV1: false</code>) and preflight warns. Unchecked: the kubelet does not start on them (<code>failCgroupV1: true</code>){features.cgroupV1Refused ? " and preflight refuses them" : ""}. cgroup v2 hosts are not affected.
              </>
            }
          />
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
          {draft.apiType === "vip" && (
            <>
              <Field
                label="keepalived interface (optional)"
                htmlFor="keepalived-iface"
                errors={errorsAt("spec.apiEndpoint.keepalived.interface") ?? errorsAt("spec.apiEndpoint.keepalived")}
                hint="Given: Bootdeck runs keepalived (from the hosts' packages) on every master to hold the VIP on this interface, where the masters' addresses are, while an API server answers there. Empty: the address is someone else's, such as a load balancer."
              >
                <input id="keepalived-iface" data-testid="field-keepalived-iface" className={inputClass(errorsAt("spec.apiEndpoint.keepalived.interface"))} placeholder="eth0" value={draft.keepalivedInterface} onChange={(e) => update({ keepalivedInterface: e.target.value })} />
              </Field>
              <Field label="VRRP router id" htmlFor="vrrp-id" errors={errorsAt("spec.apiEndpoint.keepalived.virtualRouterId")} hint="1–255, unique among the VRRP routers on that network (keepalived only).">
                <input id="vrrp-id" data-testid="field-vrrp-id" className={inputClass(errorsAt("spec.apiEndpoint.keepalived.virtualRouterId"))} disabled={!draft.keepalivedInterface.trim()} value={draft.virtualRouterId} onChange={(e) => update({ virtualRouterId: e.target.value })} />
              </Field>
            </>
          )}
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
          <div />
          <Field label="flannel interface (optional)" htmlFor="flannel-iface" errors={errorsAt("spec.network.flannel.iface")} hint="The host interface flannel's VXLAN runs over, where the hosts reach each other. Empty: the interface of the default route, which is wrong when that route leads elsewhere.">
            <input id="flannel-iface" data-testid="field-flannel-iface" className={inputClass(errorsAt("spec.network.flannel.iface"))} placeholder="eth1" value={draft.flannelIface} onChange={(e) => update({ flannelIface: e.target.value })} />
          </Field>
          <Field label="VXLAN port (optional)" htmlFor="vxlan-port" errors={errorsAt("spec.network.flannel.vxlanPort")} hint="UDP; empty: 8472, the Linux kernel's and flannel's default. Open it between all hosts.">
            <input id="vxlan-port" data-testid="field-vxlan-port" className={inputClass(errorsAt("spec.network.flannel.vxlanPort"))} placeholder="8472" value={draft.vxlanPort} onChange={(e) => update({ vxlanPort: e.target.value })} />
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

      {step === "binaries" && <BinariesStep draft={draft} update={update} errorsAt={errorsAt} registryPasswordErrors={errorsOfField("registry-password")} />}

      {step === "review" && (
        <Review
          draft={draft}
          problems={problems}
          warnings={result.warnings}
          onJump={(p) => {
            setShown(new Set(steps.map((s) => s.id)));
            setFresh(new Set());
            setStep(stepOfPath(p, draft));
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
  const rows = reviewRows(draft, derived);
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
        {rows.map((r) => (
          <div key={r.id} className="contents">
            <dt className="font-medium text-slate-600">{r.label}</dt>
            <dd className="col-span-2 break-all" data-testid={`review-${r.id}`}>
              {r.value}
            </dd>
          </div>
        ))}
      </dl>
      <FieldErrors id="review" errors={undefined} />
    </section>
  );
}
