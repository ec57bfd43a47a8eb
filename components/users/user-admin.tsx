"use client";
// The users page: list, create (with a generated password shown once), change role, disable or
// enable, reset password (shown once), delete. The server refuses what would lock the dashboard out.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { roles } from "@/lib/auth/roles";
import { userQueryKeys, type UserView } from "@/lib/auth/user-schemas";
import { api, ApiError } from "../api-client";
import { Time } from "../time";

type Shown = { username: string; password: string };

export function UserAdmin({ currentUsername }: { currentUsername: string }) {
  const queryClient = useQueryClient();
  const q = useQuery({ queryKey: userQueryKeys.users(), queryFn: () => api<{ users: UserView[] }>("/api/users") });
  const [shown, setShown] = useState<Shown>();
  const [error, setError] = useState<string>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: userQueryKeys.users() });
  const update = useMutation({
    mutationFn: (v: { id: string; role?: string; disabled?: boolean }) => api(`/api/users/${v.id}`, { method: "PATCH", body: { role: v.role, disabled: v.disabled } }),
    onSuccess: () => {
      setError(undefined);
      return refresh();
    },
    onError: (e) => setError(e.message),
  });
  const reset = useMutation({
    mutationFn: (u: UserView) => api<{ password: string }>(`/api/users/${u.id}/password`, { method: "POST", body: {} }).then((r) => ({ username: u.username, password: r.password })),
    onSuccess: (r) => {
      setError(undefined);
      setShown(r);
    },
    onError: (e) => setError(e.message),
  });

  const remove = useMutation({
    mutationFn: (u: UserView) => api(`/api/users/${u.id}`, { method: "DELETE" }),
    onSuccess: () => {
      setError(undefined);
      return refresh();
    },
    onError: (e) => setError(e.message),
  });

  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Users</h1>
      {shown && <PasswordOnce shown={shown} onDone={() => setShown(undefined)} />}
      {error && (
        <p className="text-sm text-red-600" role="alert" data-testid="user-error">
          {error}
        </p>
      )}
      <CreateUser onCreated={(s) => { setShown(s); void refresh(); }} />
      {q.isPending && <p className="text-sm text-slate-500">Loading users…</p>}
      {q.isError && <p className="text-sm text-red-600">Could not load users: {q.error.message}</p>}
      {q.data && (
        <table className="card min-w-full text-sm" data-testid="user-table">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="p-2">User</th>
              <th className="p-2">Name</th>
              <th className="p-2">Role</th>
              <th className="p-2">State</th>
              <th className="p-2">Created</th>
              <th className="p-2" />
            </tr>
          </thead>
          <tbody>
            {q.data.users.map((u) => (
              <tr key={u.id} className="border-t border-slate-100" data-testid={`user-row-${u.username}`}>
                <td className="p-2 font-medium">
                  {u.username}
                  {u.username === currentUsername && <span className="ml-1 text-xs text-slate-500">(you)</span>}
                </td>
                <td className="p-2">{u.displayName}</td>
                <td className="p-2">
                  <select
                    className="input py-1"
                    aria-label={`Role of ${u.username}`}
                    data-testid={`user-role-${u.username}`}
                    value={u.role}
                    disabled={update.isPending}
                    onChange={(e) => update.mutate({ id: u.id, role: e.target.value })}
                  >
                    {roles.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                </td>
                <td className="p-2">{u.disabled ? <span className="text-red-600">disabled</span> : "enabled"}</td>
                <td className="p-2 text-slate-500"><Time iso={u.createdAt} date /></td>
                <td className="flex justify-end gap-2 p-2">
                  <button
                    className="btn"
                    data-testid={`user-toggle-${u.username}`}
                    disabled={update.isPending || (u.username === currentUsername && !u.disabled)}
                    onClick={() => update.mutate({ id: u.id, disabled: !u.disabled })}
                  >
                    {u.disabled ? "Enable" : "Disable"}
                  </button>
                  {u.provider === "local" ? (
                    <button
                      className="btn"
                      data-testid={`user-reset-${u.username}`}
                      disabled={reset.isPending}
                      onClick={() => {
                        if (window.confirm(`Set a new password for ${u.username}? Their sessions end.`)) reset.mutate(u);
                      }}
                    >
                      Reset password
                    </button>
                  ) : (
                    <span className="text-xs text-slate-600" title="Signs in through the identity provider; its groups set the role at every check">
                      identity provider
                    </span>
                  )}
                  <button
                    className="btn"
                    data-testid={`user-delete-${u.username}`}
                    disabled={remove.isPending || u.username === currentUsername}
                    onClick={() => {
                      if (window.confirm(`Delete the account ${u.username}? Their sessions end; the audit log keeps what they did.`)) remove.mutate(u);
                    }}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function PasswordOnce({ shown, onDone }: { shown: Shown; onDone: () => void }) {
  return (
    <div className="card border-amber-300 bg-amber-50 text-sm" role="status" data-testid="password-once">
      <p>
        Password for <strong>{shown.username}</strong> (shown only this once; give it to them over a safe channel):
      </p>
      <p className="my-2 select-all font-mono text-base" data-testid="password-once-value">
        {shown.password}
      </p>
      <button className="btn" onClick={onDone} data-testid="password-once-done">
        Done
      </button>
    </div>
  );
}

function CreateUser({ onCreated }: { onCreated: (s: Shown) => void }) {
  const [username, setUsername] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [role, setRole] = useState<string>("support");
  const create = useMutation({
    mutationFn: () =>
      api<{ user: UserView; password: string }>("/api/users", { method: "POST", body: { username, role, ...(displayName ? { displayName } : {}) } }),
    onSuccess: (r) => {
      setUsername("");
      setDisplayName("");
      onCreated({ username: r.user.username, password: r.password });
    },
  });
  const problems = create.error instanceof ApiError ? create.error.errors : [];
  return (
    <form
      className="card flex flex-wrap items-end gap-3"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <div>
        <label className="label" htmlFor="new-username">User name</label>
        <input id="new-username" className="input" value={username} onChange={(e) => setUsername(e.target.value.toLowerCase())} required maxLength={32} data-testid="new-user-name" />
      </div>
      <div>
        <label className="label" htmlFor="new-display">Display name (optional)</label>
        <input id="new-display" className="input" value={displayName} onChange={(e) => setDisplayName(e.target.value)} maxLength={64} data-testid="new-user-display" />
      </div>
      <div>
        <label className="label" htmlFor="new-role">Role</label>
        <select id="new-role" className="input" value={role} onChange={(e) => setRole(e.target.value)} data-testid="new-user-role">
          {roles.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </div>
      <button className="btn-primary" disabled={create.isPending || !username} data-testid="new-user-submit">
        {create.isPending ? "Creating…" : "Create user"}
      </button>
      {create.isError && (
        <div className="w-full text-sm text-red-600" role="alert">
          {problems.length ? problems.map((p) => <p key={p.path}>{`${p.path}: ${p.message}`}</p>) : create.error.message}
        </div>
      )}
    </form>
  );
}
