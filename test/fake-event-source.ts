// A stand-in for the browser's EventSource in unit tests: records instances, lets a test open them,
// deliver events and fail them the two ways a browser does.
export class FakeEventSource {
  static instances: FakeEventSource[] = [];
  readyState = 0;
  readonly listeners = new Map<string, ((e: MessageEvent<string>) => void)[]>();
  constructor(readonly url: string) {
    FakeEventSource.instances.push(this);
  }
  addEventListener(type: string, listener: (e: MessageEvent<string>) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close(): void {
    this.readyState = 2;
  }
  emit(type: string, data?: unknown, lastEventId = ""): void {
    for (const l of this.listeners.get(type) ?? []) l({ data: JSON.stringify(data), lastEventId } as MessageEvent<string>);
  }
  /** The browser's view: opened. */
  opened(): void {
    this.readyState = 1;
    this.emit("open");
  }
  /** A network error: the browser retries by itself. */
  networkError(): void {
    this.readyState = 0;
    this.emit("error");
  }
  /** An HTTP error response (502 from a proxy): the browser gives up. */
  httpError(): void {
    this.readyState = 2;
    this.emit("error");
  }
}

export const fakeImpl = FakeEventSource as unknown as typeof EventSource;
