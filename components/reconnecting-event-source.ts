// An EventSource that does not give up. The browser reconnects by itself after a network error (and
// resends Last-Event-ID), but an HTTP error response — a reverse proxy's 502 while the dashboard
// restarts, a 503 — or a response that is not an event stream puts it in the CLOSED state for good
// (HTML spec, "fail the connection"). Then this opens a new one after a back-off, with a URL computed
// at that moment (so a run's stream resumes from what the page has applied), and says so once it is
// open again.

export type StreamListener = (e: MessageEvent<string>) => void;

/**
 * `connecting`: the first open is under way. `open`: events flow. `reconnecting`: the connection was
 * lost and the browser (a network error) or this (an HTTP error) is opening it again. `closed`: closed
 * by its owner.
 */
export type StreamState = "connecting" | "open" | "reconnecting" | "closed";

export type ReconnectingEventSourceOptions = {
  /** The URL for each (re)open. */
  url: () => string;
  /** Named events and their listeners. */
  listeners: Record<string, StreamListener>;
  /** Called when a source this opened after a CLOSED one is open: what was missed may need a refetch. */
  onReopened?: () => void;
  /**
   * Called each time the server closed the stream with an HTTP error (before the back-off). The stream
   * cannot say which error; a plain request can: an expired session answers 401, which signs the user out.
   */
  onClosedByServer?: () => void;
  /** Called when the state changes (not repeated for the same state). */
  onStateChange?: (state: StreamState) => void;
  /** Wait before the n-th reopen in a row (n from 0): 1 s, 2 s, 4 s … at most 15 s. */
  backoffMs?: (n: number) => number;
  /** For tests; defaults to the browser's EventSource. */
  EventSourceImpl?: typeof EventSource;
};

export type ReconnectingEventSource = { close: () => void };

const CLOSED = 2; // EventSource.CLOSED

export const defaultBackoffMs = (n: number) => Math.min(15_000, 1_000 * 2 ** n);

export function openReconnectingEventSource(opts: ReconnectingEventSourceOptions): ReconnectingEventSource {
  const Impl = opts.EventSourceImpl ?? EventSource;
  const backoff = opts.backoffMs ?? defaultBackoffMs;
  let closed = false;
  let failures = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let source: EventSource | undefined;
  let state: StreamState | undefined;
  const setState = (next: StreamState) => {
    if (next === state) return;
    state = next;
    opts.onStateChange?.(next);
  };

  const open = (reopened: boolean) => {
    const url = opts.url();
    if (closed) return; // computing the URL may have ended it
    const s = new Impl(url);
    source = s;
    for (const [type, listener] of Object.entries(opts.listeners)) s.addEventListener(type, listener as EventListener);
    s.addEventListener("open", () => {
      if (closed || s !== source) return;
      failures = 0;
      setState("open");
      if (reopened) {
        reopened = false;
        opts.onReopened?.();
      }
    });
    s.addEventListener("error", () => {
      // CONNECTING: the browser is already retrying. CLOSED: it never will.
      if (closed || s !== source) return;
      // Before the first open, an error is still "connecting"; after it, the stream is being recovered.
      if (state !== "connecting") setState("reconnecting");
      if (s.readyState !== CLOSED) return;
      opts.onClosedByServer?.();
      timer = setTimeout(() => {
        timer = undefined;
        if (!closed) open(true);
      }, backoff(failures++));
    });
  };
  setState("connecting");
  open(false);

  return {
    close: () => {
      if (closed) return;
      closed = true;
      setState("closed");
      if (timer !== undefined) clearTimeout(timer);
      source?.close();
    },
  };
}
