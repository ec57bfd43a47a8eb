// Records, inside the page, every EventSource the page opens: its URL, its open and error events (with
// the readyState the browser left it in) and each named event the page listens to, with its id, when
// it arrived and the commit time its data carries. A test reads it back to tell what reached the page
// across dropped connections, and how late.
import type { Page } from "@playwright/test";

export type RecordedEventSource = {
  url: string;
  opens: number;
  /** readyState after each error: 0 = the browser retries by itself, 2 = closed for good. */
  errors: number[];
  /** receivedAt: the page's Date.now() on arrival; at: the `at` of the event's JSON data (a run event's commit time), if any. */
  events: { id: string; type: string; receivedAt: number; at?: string }[];
};

declare global {
  interface Window {
    __eventSources?: RecordedEventSource[];
  }
}

/** Runs in the page before its scripts (page.addInitScript): wraps window.EventSource. */
function installRecorder(): void {
  type Add = (this: EventTarget, type: string, listener: unknown, options?: unknown) => void;
  const sources: RecordedEventSource[] = [];
  window.__eventSources = sources;
  const records = new WeakMap<EventTarget, { rec: RecordedEventSource; types: Set<string> }>();
  const atOf = (data: unknown): string | undefined => {
    try {
      const at = (JSON.parse(String(data)) as { at?: unknown }).at;
      return typeof at === "string" ? at : undefined;
    } catch {
      return undefined;
    }
  };
  const add = EventSource.prototype.addEventListener as unknown as Add;
  // The first listener for a named event also records it, before the page's own.
  const recordingAdd: Add = function (type, listener, options) {
    const r = records.get(this);
    if (r && type !== "open" && type !== "error" && !r.types.has(type)) {
      r.types.add(type);
      add.call(this, type, (e: MessageEvent) => r.rec.events.push({ id: e.lastEventId, type, receivedAt: Date.now(), at: atOf(e.data) }));
    }
    add.call(this, type, listener, options);
  };
  EventSource.prototype.addEventListener = recordingAdd as unknown as typeof EventSource.prototype.addEventListener;
  window.EventSource = new Proxy(EventSource, {
    construct(target, args: [string | URL, EventSourceInit?]) {
      const source = new target(...args);
      const rec: RecordedEventSource = { url: String(args[0]), opens: 0, errors: [], events: [] };
      sources.push(rec);
      records.set(source, { rec, types: new Set() });
      add.call(source, "open", () => (rec.opens += 1));
      add.call(source, "error", () => rec.errors.push(source.readyState));
      return source;
    },
  });
}

export async function recordEventSources(page: Page): Promise<void> {
  await page.addInitScript(installRecorder);
}

/** What the page's event sources whose URL contains `urlPart` recorded, in the order they were opened. */
export async function recordedEventSources(page: Page, urlPart: string): Promise<RecordedEventSource[]> {
  const all = await page.evaluate(() => window.__eventSources ?? []);
  return all.filter((s) => s.url.includes(urlPart));
}
