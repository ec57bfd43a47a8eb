// A personal kubeconfig as the cluster page lists it; browser-safe.
export type KubeconfigIssueView = { id: string; serial: string; username: string; role: string; group: string; notBefore: string; notAfter: string; createdAt: string };
