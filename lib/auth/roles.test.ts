// A refused request says "Your role may not …" (lib/http/errors.ts) with what the permission lets a role
// do: a verb and its object, never the permission's id ("Your role may not user manage").
import { expect, test } from "vitest";
import { forbidden } from "../http/errors";
import { permissionText, type Permission } from "./roles";

const messages: Record<Permission, string> = {
  "cluster:read": "Your role may not see clusters",
  "cluster:write": "Your role may not change clusters",
  "secret:read": "Your role may not read secrets",
  "run:start": "Your role may not start runs",
  "run:cancel": "Your role may not cancel runs",
  "run:retry": "Your role may not retry runs",
  "run:release": "Your role may not release stuck runs",
  "host:reset": "Your role may not reset hosts",
  "host:inspect": "Your role may not inspect hosts",
  "host:repin": "Your role may not re-pin host keys",
  "backup:create": "Your role may not back up etcd",
  "backup:download": "Your role may not download backups",
  "cluster:recover": "Your role may not restore, recover or rotate the certificates of clusters",
  "user:manage": "Your role may not manage users",
  "audit:read": "Your role may not read the audit log",
  "webhook:manage": "Your role may not manage webhooks",
  "metrics:read": "Your role may not read metrics",
  "access:manage": "Your role may not change sign-in settings",
  "kubeconfig:issue": "Your role may not download personal kubeconfigs",
  "report:upload": "Your role may not record conformance and benchmark reports",
};

test.each(Object.entries(messages))("refused %s: %s", (permission, message) => {
  expect(forbidden(permissionText[permission as Permission]).message).toBe(message);
});

test("every permission has its sentence", () => {
  expect(Object.keys(permissionText).sort()).toEqual(Object.keys(messages).sort());
});
