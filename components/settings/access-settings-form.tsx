"use client";
// Settings → Access: the identity provider, which of its groups get which role (installation-wide or
// on one cluster), local sign-in for break-glass accounts only, and how long personal kubeconfigs last.
// Fields set by environment variables are shown read-only; the client secret is never shown.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { accessQueryKeys, KUBECONFIG_HOURS, type AccessSettingsView, type GroupRoleInput } from "@/lib/auth/access-schemas";
import { roles } from "@/lib/auth/roles";
import type { Problem } from "@/lib/cluster/definition";
import { api, ApiError } from "../api-client";

type Draft = Omit<AccessSettingsView, "clientSecretSet" | "fromEnvironment" | "redirectUri" | "refreshMinutes" | "clusters"> & {
  clientSecret: string;
  breakGlassText: string;
};

function draftOf(s: AccessSettingsView): Draft {
  return { ...s, clientSecret: "", breakGlassText: s.breakGlass.join(", ") };
}

export function AccessSettingsForm() {
  const queryClient = useQueryClient();
  const q = useQuery({ queryKey: accessQueryKeys.settings(), queryFn: () => api<{ settings: AccessSettingsView }>("/api/settings/access") });
  const [draft, setDraft] = useState<Draft>();
  const [problems, setProblems] = useState<Problem[]>([]);
  const [message, setMessage] = useState<{ ok: boolean; text: string }>();
  useEffect(() => {
    if (q.data && !draft) setDraft(draftOf(q.data.settings));
  }, [q.data, draft]);
  const save = useMutation({
    mutationFn: (d: Draft) =>
      api<{ settings: AccessSettingsView }>("/api/settings/access", {
        method: "PUT",
        body: {
          oidcEnabled: d.oidcEnabled,
          issuer: d.issuer,
          clientId: d.clientId,
          ...(d.clientSecret ? { clientSecret: d.clientSecret } : {}),
          scopes: d.scopes,
          groupsClaim: d.groupsClaim,
          usernameClaim: d.usernameClaim,
          localSignIn: d.localSignIn,
          breakGlass: d.breakGlassText
            .split(/[\s,]+/)
            .map((s) => s.trim())
            .filter(Boolean),
          kubeconfigHours: d.kubeconfigHours,
          mappings: d.mappings,
        },
      }),
    onSuccess: (r) => {
      setProblems([]);
      setMessage({ ok: true, text: "Saved." });
      setDraft(draftOf(r.settings));
      queryClient.setQueryData(accessQueryKeys.settings(), r);
    },
    onError: (e) => {
      setProblems(e instanceof ApiError ? e.errors : []);
      setMessage({ ok: false, text: e.message });
    },
  });

  if (q.isPending || (!draft && !q.isError)) return <p className="text-sm text-slate-500">Loading…</p>;
  if (q.isError) return <p className="text-sm text-red-600">Could not load the settings: {q.error.message}</p>;
  if (!draft) return null;
  const s = q.data.settings;
  const env = new Set(s.fromEnvironment);
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setDraft({ ...draft, [k]: v });
  const problem = (path: string) => problems.find((p) => p.path === path || p.path.startsWith(`${path}.`))?.message;
  const text = (k: "issuer" | "clientId" | "scopes" | "groupsClaim" | "usernameClaim", label: string, hint?: string) => (
    <div>
      <label className="label" htmlFor={`access-${k}`}>
        {label}
        {env.has(k as never) && <span className="ml-1 text-xs text-slate-500">(set in the environment)</span>}
      </label>
      <input
        id={`access-${k}`}
        className="input"
        value={draft[k]}
        readOnly={env.has(k as never)}
        onChange={(e) => set(k, e.target.value)}
        data-testid={`access-${k}`}
        aria-describedby={hint ? `access-${k}-hint` : undefined}
      />
      {hint && (
        <p id={`access-${k}-hint`} className="mt-1 text-xs text-slate-600">
          {hint}
        </p>
      )}
      {problem(k) && <p className="mt-1 text-xs text-red-600">{problem(k)}</p>}
    </div>
  );
  const setMapping = (i: number, m: GroupRoleInput | undefined) =>
    set(
      "mappings",
      m ? draft.mappings.map((x, j) => (j === i ? m : x)) : draft.mappings.filter((_, j) => j !== i),
    );

  return (
    <form
      className="space-y-6"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(draft);
      }}
    >
      <h1 className="text-2xl font-bold">Access</h1>
      <section className="card space-y-3">
        <h2 className="text-lg font-semibold">Identity provider (OpenID Connect)</h2>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={draft.oidcEnabled} onChange={(e) => set("oidcEnabled", e.target.checked)} data-testid="access-oidc-enabled" />
          Sign in with the identity provider
        </label>
        <p className="text-xs text-slate-600">
          Register this redirect URI at the provider: <code data-testid="access-redirect-uri">{s.redirectUri}</code>
        </p>
        {text("issuer", "Issuer URL", "e.g. https://login.example.com/realms/ops; its /.well-known/openid-configuration must name the same issuer")}
        {text("clientId", "Client ID")}
        <div>
          <label className="label" htmlFor="access-client-secret">
            Client secret
            {env.has("clientSecret") && <span className="ml-1 text-xs text-slate-500">(set in the environment)</span>}
          </label>
          <input
            id="access-client-secret"
            type="password"
            className="input"
            autoComplete="off"
            readOnly={env.has("clientSecret")}
            placeholder={s.clientSecretSet ? "stored — type to replace" : "none stored"}
            value={draft.clientSecret}
            onChange={(e) => set("clientSecret", e.target.value)}
            data-testid="access-client-secret"
          />
        </div>
        {text("scopes", "Scopes", "space-separated; offline_access asks for the refresh token the session is checked with")}
        {text("groupsClaim", "Groups claim", "the ID token or userinfo claim that lists the person's groups")}
        {text("usernameClaim", "User name claim", "Bootdeck's name for the person is made from it (the account itself is the provider's subject)")}
        <p className="text-xs text-slate-600">
          Sessions are checked with the provider every {s.refreshMinutes} minutes (BOOTDECK_OIDC_REFRESH_MINUTES): they end when the refresh fails or the person is in no mapped group any more.
        </p>
      </section>

      <section className="card space-y-3">
        <h2 className="text-lg font-semibold">Groups and roles</h2>
        <p className="text-xs text-slate-600">
          A person signs in with the highest role of their groups mapped for the whole installation; a mapping for one cluster raises it there only. Nobody without an installation-wide mapped group gets in.
        </p>
        <table className="min-w-full text-sm" data-testid="access-mappings">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="p-1">Group</th>
              <th className="p-1">Role</th>
              <th className="p-1">Where</th>
              <th className="p-1" />
            </tr>
          </thead>
          <tbody>
            {draft.mappings.map((m, i) => (
              <tr key={i}>
                <td className="p-1">
                  <input className="input" aria-label={`Group of mapping ${i + 1}`} value={m.group} onChange={(e) => setMapping(i, { ...m, group: e.target.value })} data-testid={`mapping-group-${i}`} />
                  {problem(`mappings.${i}`) && <p className="text-xs text-red-600">{problem(`mappings.${i}`)}</p>}
                </td>
                <td className="p-1">
                  <select className="input" aria-label={`Role of mapping ${i + 1}`} value={m.role} onChange={(e) => setMapping(i, { ...m, role: e.target.value as GroupRoleInput["role"] })} data-testid={`mapping-role-${i}`}>
                    {roles.map((r) => (
                      <option key={r}>{r}</option>
                    ))}
                  </select>
                </td>
                <td className="p-1">
                  <select className="input" aria-label={`Scope of mapping ${i + 1}`} value={m.clusterId ?? ""} onChange={(e) => setMapping(i, { ...m, clusterId: e.target.value || null })}>
                    <option value="">whole installation</option>
                    {s.clusters.map((c) => (
                      <option key={c.id} value={c.id}>
                        cluster {c.name}
                      </option>
                    ))}
                  </select>
                </td>
                <td className="p-1">
                  <button type="button" className="btn" onClick={() => setMapping(i, undefined)}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" className="btn" onClick={() => set("mappings", [...draft.mappings, { group: "", role: "support", clusterId: null }])} data-testid="mapping-add">
          Add a mapping
        </button>
      </section>

      <section className="card space-y-3">
        <h2 className="text-lg font-semibold">Local accounts</h2>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={draft.localSignIn === "break-glass"}
            onChange={(e) => set("localSignIn", e.target.checked ? "break-glass" : "everyone")}
            data-testid="access-break-glass-only"
          />
          Local sign-in only for break-glass accounts
        </label>
        <div>
          <label className="label" htmlFor="access-break-glass">
            Break-glass accounts
          </label>
          <input id="access-break-glass" className="input" value={draft.breakGlassText} onChange={(e) => set("breakGlassText", e.target.value)} placeholder="admin" data-testid="access-break-glass" />
          <p className="mt-1 text-xs text-slate-600">Local user names, comma-separated; at least one enabled local admin, for when the provider is down.</p>
          {problem("breakGlass") && <p className="mt-1 text-xs text-red-600">{problem("breakGlass")}</p>}
          {problem("localSignIn") && <p className="mt-1 text-xs text-red-600">{problem("localSignIn")}</p>}
        </div>
      </section>

      <section className="card space-y-3">
        <h2 className="text-lg font-semibold">Personal kubeconfigs</h2>
        <div>
          <label className="label" htmlFor="access-kubeconfig-hours">
            Valid for (hours)
          </label>
          <input
            id="access-kubeconfig-hours"
            type="number"
            min={1}
            max={KUBECONFIG_HOURS.max}
            className="input w-32"
            value={draft.kubeconfigHours}
            onChange={(e) => set("kubeconfigHours", Number(e.target.value))}
            data-testid="access-kubeconfig-hours"
          />
          <p className="mt-1 text-xs text-slate-600">
            Default {KUBECONFIG_HOURS.default}, at most {KUBECONFIG_HOURS.max}. A certificate cannot be revoked before it expires.
          </p>
          {problem("kubeconfigHours") && <p className="mt-1 text-xs text-red-600">{problem("kubeconfigHours")}</p>}
        </div>
      </section>

      {message && (
        <p className={`text-sm ${message.ok ? "text-green-700" : "text-red-600"}`} role={message.ok ? "status" : "alert"} data-testid="access-message">
          {message.text}
        </p>
      )}
      <button className="btn-primary" disabled={save.isPending} data-testid="access-save">
        {save.isPending ? "Saving…" : "Save"}
      </button>
    </form>
  );
}
