import "server-only";
// The disaster-recovery runs' actions, in one table the engine's action index spreads in.
import { backupActions } from "./backup";
import { certActions } from "./certs";
import { encryptionActions } from "./encryption";
import { restoreActions } from "./restore";
import { staticActions } from "./static";
import type { Action } from "./types";

export const drActions: Record<string, Action> = {
  ...backupActions,
  ...restoreActions,
  ...staticActions,
  ...certActions,
  ...encryptionActions,
};
