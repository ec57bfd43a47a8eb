// Splits a byte stream into text lines; the trailing partial line is held until more data or flush().

export class LineSplitter {
  private partial = "";
  private decoder = new TextDecoder("utf-8", { fatal: false });

  constructor(private readonly emit: (line: string) => void) {}

  push(chunk: Buffer | string): void {
    const text = this.partial + (typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true }));
    const parts = text.split("\n");
    this.partial = parts.pop() ?? "";
    for (const p of parts) this.emit(p.endsWith("\r") ? p.slice(0, -1) : p);
  }

  flush(): void {
    const rest = this.partial + this.decoder.decode();
    this.partial = "";
    if (rest.length > 0) this.emit(rest);
  }
}
