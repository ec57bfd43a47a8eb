// Which wizard step owns which field paths, so server and client problems land next to their field.
export const steps = [
  { id: "basics", title: "Basics" },
  { id: "network", title: "Network" },
  { id: "hosts", title: "Hosts & access" },
  { id: "binaries", title: "Binaries" },
  { id: "review", title: "Review" },
] as const;

export type StepId = (typeof steps)[number]["id"];

export function stepOfPath(path: string): StepId {
  if (path.startsWith("metadata") || path.startsWith("spec.kubernetes") || path.startsWith("spec.apiEndpoint")) return "basics";
  if (path.startsWith("spec.network")) return "network";
  if (path.startsWith("spec.hosts") || path.startsWith("spec.ssh") || path.startsWith("spec.credentials") || path.startsWith("secrets")) return "hosts";
  if (path.startsWith("spec.binaries")) return "binaries";
  return "review";
}
