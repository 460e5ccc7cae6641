// Collects one command's output from the clean text stream until its end marker and the prompt
// after it. Keeps the head of the output within soft caps (bytes, lines) and only counts the
// rest; past the hard caps it reports 'hard-limit' so the session can stop the command.
//
// The command and its marker command go out in one write, and the output is known complete as
// early as the stream allows:
// - a console that echoes a line when the debugger reads it (Windows conhost, Wine's console, the
//   cdb emulator) prints the marker command's echo right after the prompt that ends the command:
//   `0:000> .echo _qzk7_` / `Wine-dbg>echo _qzk7_`. That line proves the command finished, so the
//   output is 'complete' there, without waiting for the debugger to run the marker command too;
// - a tty that echoes on write shows both echoes first; then only the marker's own output line,
//   followed by the prompt, ends the command.
// Either way the stream is read on to the marker and the prompt after it ('done') before the next
// command is written, so the framing stays exact. An error in the command cannot eat the marker:
// it travels on its own line, and debuggers drop only the rest of the line that failed
// (test/engine/cdb-emulator-session.test.ts, test/e2e/winedbg-session.test.ts).
import type { Dialect } from './dialects/types.js';

export interface OutputLimits {
  maxBytes: number;
  maxLines: number;
  hardMaxBytes: number;
  hardMaxLines: number;
}

export type FeedResult = 'more' | 'complete' | 'done' | 'hard-limit';

/** Longest unfinished line kept; a longer one is cut (its tail is kept for prompt detection). */
const MAX_PARTIAL = 64 * 1024;
const PARTIAL_TAIL = 4096;

export class CommandOutput {
  readonly lines: string[] = [];
  truncated = false;
  droppedLines = 0;
  droppedBytes = 0;
  private keptBytes = 0;
  private totalBytes = 0;
  private totalLines = 0;
  private partial = '';
  private markerSeen = false;
  private commandEchoSeen = false;
  private markerEchoSeen = false;
  private hardLimitHit = false;
  private finished = false;
  /** The command's output is all there (the rest of the stream is the marker's). */
  private outputComplete = false;

  constructor(
    private readonly dialect: Dialect,
    readonly command: string,
    private readonly markerCommand: string,
    private readonly marker: string,
    private readonly limits: OutputLimits,
  ) {}

  get done(): boolean {
    return this.finished;
  }

  get complete(): boolean {
    return this.outputComplete;
  }

  feed(text: string): FeedResult {
    if (this.finished) return 'done';
    const wasComplete = this.outputComplete;
    this.totalBytes += text.length;
    let start = 0;
    let at = text.indexOf('\n');
    if (at >= 0) {
      this.takeLine(this.partial + text.slice(0, at));
      this.partial = '';
      start = at + 1;
      while ((at = text.indexOf('\n', start)) >= 0) {
        this.takeLine(text.slice(start, at));
        start = at + 1;
      }
    }
    this.partial += start === 0 ? text : text.slice(start);
    if (this.partial.length > MAX_PARTIAL) {
      const cut = this.partial.length - PARTIAL_TAIL;
      this.droppedBytes += cut;
      this.truncated = true;
      this.partial = this.partial.slice(cut);
    }
    if (this.markerSeen && this.dialect.isPrompt(this.partial)) {
      this.finished = true;
      this.outputComplete = true;
      return 'done';
    }
    if (this.outputComplete) return wasComplete ? 'more' : 'complete';
    if (
      !this.hardLimitHit &&
      (this.totalBytes > this.limits.hardMaxBytes || this.totalLines > this.limits.hardMaxLines)
    ) {
      this.hardLimitHit = true;
      return 'hard-limit';
    }
    return 'more';
  }

  private takeLine(line: string): void {
    this.totalLines += 1;
    if (this.markerSeen) return; // stray text between the marker and the prompt
    const bare = this.dialect.stripPrompt(line);
    if (this.dialect.isMarkerLine(bare, this.marker)) {
      this.markerSeen = true;
      this.outputComplete = true;
      return;
    }
    if (this.outputComplete) return; // the marker's own echo or output, before the marker line
    if (!this.markerEchoSeen && this.endsWithPromptAndMarkerEcho(line)) return;
    // Echoes are dropped on arrival so they never count against the caps: the command's echo
    // is the first line; the marker command's echo comes last (conhost echoes on read) or
    // second (a tty echoes on write).
    // Compared trimmed at both ends: when a read ends between a cdb prompt's `>` and its space,
    // the late space arrives in front of the echo (` kc`).
    if (!this.commandEchoSeen && this.totalLines === 1 && bare.trim() === this.command.trim()) {
      this.commandEchoSeen = true;
      return;
    }
    if (!this.markerEchoSeen && bare.trim() === this.markerCommand) {
      this.markerEchoSeen = true;
      return;
    }
    this.keep(line);
  }

  /**
   * `0:000> .echo _qzk7_`, or after partial output `abc0:000> .echo _qzk7_`: the debugger printed
   * its prompt (the command is finished) and read the marker command. The partial output before
   * the prompt is the command's last line.
   */
  private endsWithPromptAndMarkerEcho(line: string): boolean {
    const text = line.trimEnd();
    if (!text.endsWith(this.markerCommand)) return false;
    const before = text.slice(0, text.length - this.markerCommand.length);
    const output = before.replace(this.dialect.promptPattern, '');
    if (output === before) return false;
    this.markerEchoSeen = true;
    this.outputComplete = true;
    if (output.length > 0) this.keep(output);
    return true;
  }

  private keep(line: string): void {
    if (
      !this.truncated &&
      this.lines.length < this.limits.maxLines &&
      this.keptBytes + line.length + 1 <= this.limits.maxBytes
    ) {
      this.lines.push(line);
      this.keptBytes += line.length + 1;
    } else {
      this.truncated = true;
      this.droppedLines += 1;
      this.droppedBytes += line.length + 1;
    }
  }

  /** The output with the echoed command, the echoed marker command and prompts removed. */
  result(): string[] {
    const lines = [...this.lines];
    // Partial output, then the prompt, then the marker echo on one line: `abc0:000> .echo M`.
    for (let i = lines.length - 1; i >= 0 && !this.markerEchoSeen; i--) {
      const line = lines[i] ?? '';
      if (line.endsWith(this.markerCommand)) {
        const before = line.slice(0, line.length - this.markerCommand.length);
        const withoutPrompt = before.replace(this.dialect.promptPattern, '');
        if (withoutPrompt !== before) {
          if (withoutPrompt.length > 0) lines[i] = withoutPrompt;
          else lines.splice(i, 1);
          break;
        }
      }
    }
    // A line that is only a prompt (or ends in one, after partial output) closes the output.
    const last = lines[lines.length - 1];
    if (last !== undefined) {
      const withoutPrompt = last.replace(this.dialect.promptPattern, '');
      if (withoutPrompt !== last) {
        if (withoutPrompt.length > 0) lines[lines.length - 1] = withoutPrompt;
        else lines.pop();
      }
    }
    return lines;
  }
}
