// Open live streams in this process (the run pages' and the clusters' pods-and-nodes streams), for the
// metrics' SSE viewers gauge. Each stream opens one handle and closes it once, however it ends.
export type StreamKind = "run" | "cluster";

const open: Record<StreamKind, number> = { run: 0, cluster: 0 };

export function viewerOpened(kind: StreamKind): () => void {
  open[kind]++;
  let closed = false;
  return () => {
    if (closed) return;
    closed = true;
    open[kind]--;
  };
}

export function openViewers(): Readonly<Record<StreamKind, number>> {
  return open;
}
