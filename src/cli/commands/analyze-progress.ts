// `analyze`'s stderr while it runs: the engine chosen, warnings, and the progress line (redrawn on
// a terminal that can, plain lines elsewhere), plus the command that continues an interrupted run.
import { progressLine } from '../../report/analyze/progress-text.js';
import type { AnalyzeEvent } from '../../workflows/analyze/analyze.js';
import { symbolServerDownLine } from '../../workflows/analyze/symbols-setup.js';
import { escapeControls } from '../../report/terminal-text.js';

export function resumeHint(paths: readonly string[], outDir: string): string {
  const quote = (arg: string) =>
    /^[\w./:@%+=,-]+$/.test(arg) ? arg : `"${arg.replace(/(["\\$`])/g, '\\$1')}"`;
  return `to continue, run: cdb-harness analyze ${paths.map(quote).join(' ')} --out ${quote(outDir)} --resume`;
}

/** Stderr progress: a redrawn line on a TTY; elsewhere a plain line every 5 s or 10 %. */
export class ProgressPrinter {
  // A terminal that can redraw a line: not a pipe, and not TERM=dumb (Emacs shells, CI logs
  // that record a tty), where `\r\x1b[2K` would print as garbage.
  private readonly tty = process.stderr.isTTY && process.env['TERM'] !== 'dumb';
  private started = performance.now();
  private ok = 0;
  private failed = 0;
  private skipped = 0;
  private lastPlain = 0;
  private lastPercent = 0;
  private drawn = false;

  constructor(private readonly enabled: boolean) {}

  on(event: AnalyzeEvent): void {
    switch (event.type) {
      case 'engine':
        process.stderr.write(
          `engine: ${event.choice.engine} (${event.choice.reason})${event.script === undefined ? '' : `, script ${event.script}`}\n`,
        );
        if (event.warning !== undefined) process.stderr.write(`warning: ${event.warning}\n`);
        return;
      case 'threads':
        if (event.threads > 0 || this.enabled) {
          process.stderr.write(
            `threads: ${event.threads === 0 ? 'none' : `${event.threads} analyze ${event.threads === 1 ? 'thread' : 'threads'} besides the main one`} (${event.reason})\n`,
          );
        }
        return;
      case 'unmatched':
        process.stderr.write(`warning: "${escapeControls(event.input)}" matched no dump file\n`);
        return;
      case 'start':
        this.started = performance.now();
        if (this.enabled)
          process.stderr.write(
            `analysing ${event.total} ${event.total === 1 ? 'file' : 'files'} into ${event.outDir}\n`,
          );
        return;
      case 'retry':
        this.clear();
        process.stderr.write(
          `debugger exited on ${escapeControls(event.file)}; retrying once (${event.error.code})\n`,
        );
        return;
      case 'symbol-server-down':
        this.clear();
        process.stderr.write(symbolServerDownLine(event.server, event.reason));
        return;
      case 'queue':
        this.clear();
        process.stderr.write(`queue: ${escapeControls(event.message)}\n`);
        return;
      case 'bad-record-line':
        process.stderr.write(
          `warning: records.ndjson line ${event.line} skipped: ${event.reason}\n`,
        );
        return;
      case 'dump':
        if (event.status === 'ok') this.ok++;
        else if (event.status === 'failed' || event.status === 'quarantined') this.failed++;
        else this.skipped++;
        this.draw(event.done, event.total);
        return;
      case 'finish':
        return;
    }
  }

  private draw(done: number, total: number): void {
    if (!this.enabled) return;
    const line = progressLine({
      done,
      total,
      ok: this.ok,
      failed: this.failed,
      skipped: this.skipped,
      elapsedMs: performance.now() - this.started,
    });
    if (this.tty) {
      process.stderr.write(`\r\x1b[2K${line}`);
      this.drawn = true;
      return;
    }
    const now = performance.now();
    const percent = Math.floor((done / Math.max(1, total)) * 10);
    if (done === total || now - this.lastPlain >= 5000 || percent > this.lastPercent) {
      process.stderr.write(`${line}\n`);
      this.lastPlain = now;
      this.lastPercent = percent;
    }
  }

  private clear(): void {
    if (this.drawn) process.stderr.write('\r\x1b[2K');
  }

  end(): void {
    if (this.drawn) process.stderr.write('\n');
    this.drawn = false;
  }
}
