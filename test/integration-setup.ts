// vitest globalSetup for *.integration.test.ts: brings up the lab "test" (4 hosts) unless it is already
// up, provides its state path to tests, and tears it down afterwards if this run created it.
import type { TestProject } from "vitest/node";
import { statePath } from "../lab/config";
import { labDown, labUp } from "../lab/lab";
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
  const existing = readState(LAB_NAME);
  const created = !existing;
  if (existing && existing.hosts.length < HOSTS) {
    throw new Error(`lab "${LAB_NAME}" is up with ${existing.hosts.length} hosts; the tests need ${HOSTS}: run \`bin/bootdeck lab down --name ${LAB_NAME}\``);
  }
  if (created) await labUp({ name: LAB_NAME, hosts: HOSTS, log: (l) => console.log(`[lab] ${l}`) });
  project.provide("labStatePath", statePath(LAB_NAME));
  process.env.BOOTDECK_LAB_STATE = statePath(LAB_NAME);
  return () => {
    if (created && !process.env.BOOTDECK_KEEP_LAB) labDown(LAB_NAME, (l) => console.log(`[lab] ${l}`));
  };
}
