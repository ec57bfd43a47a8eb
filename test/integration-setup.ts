// vitest globalSetup for *.integration.test.ts: brings up the lab "test" (4 hosts) unless it is already
// up, provides its state path to tests, and tears it down afterwards if this run created it. With
// BOOTDECK_TEST_LAB=none (a run of suites that build labs of their own) there is no shared lab.
import type { TestProject } from "vitest/node";
import { statePath } from "../lab/config";
import { labDown, labStatus, labUp } from "../lab/lab";
import { readState } from "../lab/state";

export const LAB_NAME = process.env.BOOTDECK_TEST_LAB ?? "test";
const HOSTS = 4;

declare module "vitest" {
  export interface ProvidedContext {
    labStatePath: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  if (process.getuid?.() !== 0) {
    throw new Error("integration tests need root (they start the lab: network namespaces, overlay mounts); run them as root");
  }
  if (LAB_NAME === "none") {
    project.provide("labStatePath", "");
    return () => undefined;
  }
  const log = (l: string) => console.log(`[lab] ${l}`);
  // Reuse a running lab only when every host answers: a lab left behind by a killed session (its
  // processes gone, its state file still in /run) is taken down and built again.
  let existing = readState(LAB_NAME);
  if (existing) {
    const { hosts } = await labStatus(LAB_NAME);
    const healthy = hosts.length >= HOSTS && hosts.every((h) => h.running && h.link === "up" && h.sshd);
    if (!healthy) {
      log(`lab "${LAB_NAME}" is not healthy (${hosts.filter((h) => h.sshd).length}/${HOSTS} hosts answer); rebuilding it`);
      labDown(LAB_NAME, log);
      existing = undefined;
    }
  }
  const created = !existing;
  // SSH-only suites: no registry, no images.
  if (created) await labUp({ name: LAB_NAME, hosts: HOSTS, images: false, log });
  project.provide("labStatePath", statePath(LAB_NAME));
  process.env.BOOTDECK_LAB_STATE = statePath(LAB_NAME);
  return () => {
    if (created && !process.env.BOOTDECK_KEEP_LAB) labDown(LAB_NAME, log);
  };
}
