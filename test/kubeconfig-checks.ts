// Personal kubeconfigs checked against a bootstrapped lab cluster of real upstream Kubernetes, for
// each Bootdeck role: `kubectl auth whoami` names the user and the role's group (never
// system:masters), `kubectl auth can-i` answers what the rendered RBAC objects grant (admins
// everything; leads reading and rolling out, neither deleting nor reading Secrets; support reading
// only), and a certificate past its end is refused by the API server.
import { expect } from "vitest";
import type { Role } from "../lib/auth/roles";
import { issueKubeconfig } from "../lib/kubeconfigs/issue";
import { kubectlWith } from "./lab-api";

type Kubectl = (args: string[]) => string;

async function kubectlAs(clusterId: string, role: Role, username: string, now?: Date): Promise<Kubectl> {
  const { kubeconfig } = await issueKubeconfig({ clusterId, user: { id: `usr_${username.padEnd(16, "x")}`, username }, role, now });
  return kubectlWith(kubeconfig);
}

function canI(kubectl: Kubectl, ...args: string[]): boolean {
  try {
    return kubectl(["auth", "can-i", ...args]).trim() === "yes";
  } catch (err) {
    // can-i exits 1 with "no" on stdout.
    if (String((err as { stdout?: unknown }).stdout ?? "").trim().startsWith("no")) return false;
    throw err;
  }
}

export async function personalKubeconfigsChecked(clusterId: string): Promise<void> {
  for (const [role, user] of [["admin", "alice"], ["lead", "leo"], ["support", "sue"]] as const) {
    const who = JSON.parse((await kubectlAs(clusterId, role, user))(["auth", "whoami", "-o", "json"])) as { status: { userInfo: { username: string; groups: string[] } } };
    expect(who.status.userInfo.username, role).toBe(user);
    expect(who.status.userInfo.groups, role).toEqual(expect.arrayContaining([`bootdeck:${role}`, "system:authenticated"]));
    expect(who.status.userInfo.groups, role).not.toContain("system:masters");
  }

  const admin = await kubectlAs(clusterId, "admin", "alice");
  expect(canI(admin, "*", "*", "--all-namespaces")).toBe(true);
  expect(canI(admin, "delete", "nodes")).toBe(true);

  const lead = await kubectlAs(clusterId, "lead", "leo");
  expect(canI(lead, "get", "pods", "-n", "kube-system")).toBe(true);
  expect(canI(lead, "patch", "deployments.apps", "-n", "kube-system")).toBe(true);
  expect(canI(lead, "patch", "daemonsets.apps", "-n", "kube-system")).toBe(true);
  expect(canI(lead, "delete", "pods", "-n", "kube-system")).toBe(false);
  expect(canI(lead, "get", "secrets", "-n", "kube-system")).toBe(false);
  expect(canI(lead, "create", "deployments.apps", "-n", "default")).toBe(false);
  // A real rollout: a restart annotation on CoreDNS's Deployment.
  expect(lead(["-n", "kube-system", "rollout", "restart", "deployment/coredns"])).toContain("restarted");

  const support = await kubectlAs(clusterId, "support", "sue");
  expect(canI(support, "get", "pods", "-n", "kube-system")).toBe(true);
  expect(canI(support, "list", "nodes")).toBe(false); // `view` is namespaced: no nodes
  expect(canI(support, "patch", "deployments.apps", "-n", "kube-system")).toBe(false);
  expect(canI(support, "get", "secrets", "-n", "kube-system")).toBe(false);
  expect(support(["-n", "kube-system", "get", "deployments", "-o", "name"])).toContain("deployment.apps/coredns");

  // Issued nine hours ago with the default eight-hour period: it ended an hour ago.
  const expired = await kubectlAs(clusterId, "admin", "alice", new Date(Date.now() - 9 * 3600_000));
  let failure = "";
  try {
    expired(["get", "--raw", "/api"]);
  } catch (err) {
    failure = `${String((err as { stdout?: unknown }).stdout ?? "")}${String((err as { stderr?: unknown }).stderr ?? "")}`;
  }
  expect(failure).toMatch(/Unauthorized|must be logged in/);
}
