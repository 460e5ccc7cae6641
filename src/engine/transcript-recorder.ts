// Records every raw chunk written to and read from the debugger as JSON lines
// `{"t": ms since start, "dir": "in"|"out"|"exit", "data": "…"}` so a failing session can be
// replayed or read byte for byte later.
import { createWriteStream, type WriteStream } from 'node:fs';

export type TranscriptDirection = 'in' | 'out' | 'exit';

export class TranscriptRecorder {
  private readonly stream: WriteStream;
  private readonly startMs: number;
  private closed = false;
  private failure: Error | null = null;

  constructor(path: string, startMs = performance.now()) {
    this.startMs = startMs;
    this.stream = createWriteStream(path, { flags: 'w', mode: 0o600 });
    this.stream.on('error', (error) => {
      this.failure = error;
    });
  }

  record(dir: TranscriptDirection, data: string): void {
    if (this.closed || this.failure) return;
    const t = Math.round((performance.now() - this.startMs) * 1000) / 1000;
    this.stream.write(`${JSON.stringify({ t, dir, data })}\n`);
  }

  /** Flushes and closes the file; resolves even when writing failed (the session goes on). */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return new Promise((done) => this.stream.end(() => done()));
  }

  get error(): Error | null {
    return this.failure;
  }
}
