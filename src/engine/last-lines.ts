// The last N lines the debugger printed, for error messages: a timeout is only useful when it
// shows what the debugger was doing.
import { LAST_LINES } from '../errors.js';

export class LastLines {
  private readonly lines: string[] = [];
  private partial = '';

  /** `hide`: lines the user should not see in an error (the harness's own marker lines). */
  constructor(
    private readonly limit = LAST_LINES,
    private readonly hide: (line: string) => boolean = () => false,
  ) {}

  push(text: string): void {
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    if (this.partial.length > 4096) this.partial = this.partial.slice(-4096);
    for (const line of parts) {
      if (this.hide(line)) continue;
      this.lines.push(line.length > 4096 ? `${line.slice(0, 4096)}…` : line);
    }
    if (this.lines.length > this.limit * 2) this.lines.splice(0, this.lines.length - this.limit);
  }

  /** The last lines, including the unfinished one (often the prompt). */
  snapshot(): string[] {
    const keepPartial = this.partial.length > 0 && !this.hide(this.partial);
    const all = keepPartial ? [...this.lines, this.partial] : [...this.lines];
    return all.slice(-this.limit);
  }
}
