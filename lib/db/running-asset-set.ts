/**
 * Run types whose asset set is what the cluster runs once they ran (a planned or check run proves
 * nothing): a certificate rotation pushes a renewed set; a restore or recovery the set it ran with.
 */
export const CHANGING_RUN_TYPES = ["bootstrap", "join", "remove", "upgrade", "restore", "recover", "rotate-certs"];
