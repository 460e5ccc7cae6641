// Reading a stop: after a go command (or at start-up) everything the debugger prints up to the
// prompt on the unfinished last line is the stop's text (events, module loads, the target's own
// console output). The reader also tells the interrupt and end logic what has arrived so far:
// whether the debugger has read the go command (its echo line came back), whether a stop report
// has begun after it, and when the last output came.
import type { Dialect } from './dialects/types.js';
import { MAX_STOP_TEXT, STOP_TEXT_HEAD, STOP_TEXT_TAIL } from './session-defaults.js';

/** Something that consumes the clean text stream until it is satisfied. */
export interface Reader {
  feed(text: string): void;
  fail(error: Error): void;
}

/** Collects the text of a stop (or of start-up) until the prompt on the unfinished last line. */
export class StopReader implements Reader {
  private text = '';
  private dropped = 0;
  private sawNewline = false;
  readonly done: Promise<string>;
  private resolveDone: (text: string) => void = () => undefined;
  private rejectDone: (error: Error) => void = () => undefined;
  private resolveAck: () => void = () => undefined;
  /** Resolves when the debugger showed it read our input (a complete line arrived). */
  readonly ack: Promise<void>;
  finished = false;
  /** Characters that arrived after the go command's echo line: a stop may be printing. */
  afterAckChars = 0;
  /** Something other than blanks arrived after the echo line: the debugger is reporting a stop. */
  reportStarted = false;
  lastDataAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly dialect: Dialect) {
    this.done = new Promise((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
    this.done.catch(() => undefined);
    this.ack = new Promise((resolve) => (this.resolveAck = resolve));
  }

  feed(text: string): void {
    if (this.finished) return;
    this.text += text;
    this.lastDataAt = performance.now();
    if (this.sawNewline) {
      this.afterAckChars += text.length;
      if (!this.reportStarted && /\S/.test(text)) this.reportStarted = true;
    } else if (text.includes('\n')) {
      this.sawNewline = true;
      const after = text.slice(text.indexOf('\n') + 1);
      this.afterAckChars += after.length;
      if (/\S/.test(after)) this.reportStarted = true;
      this.resolveAck();
    }
    if (this.text.length > MAX_STOP_TEXT) {
      const cut = this.text.length - STOP_TEXT_HEAD - STOP_TEXT_TAIL;
      this.dropped += cut;
      this.text =
        this.text.slice(0, STOP_TEXT_HEAD) +
        `\n[… ${this.dropped} characters not kept …]\n` +
        this.text.slice(this.text.length - STOP_TEXT_TAIL);
    }
    const lastNewline = this.text.lastIndexOf('\n');
    const lastLine = this.text.slice(lastNewline + 1);
    if (this.dialect.isPrompt(lastLine)) {
      this.finished = true;
      this.resolveAck();
      this.resolveDone(this.text);
    }
  }

  fail(error: Error): void {
    if (this.finished) return;
    this.finished = true;
    this.resolveAck();
    this.rejectDone(error);
  }

  get partialText(): string {
    return this.text;
  }
}

/** Everything before the prompt line. */
export function withoutLastLine(text: string): string {
  const at = text.lastIndexOf('\n');
  return at < 0 ? '' : text.slice(0, at);
}

/** The stop output without the echoed go command and the closing prompt. */
export function stopText(text: string, goCommand: string, dialect: Dialect): string {
  const lines = withoutLastLine(text).split('\n');
  const lastLine = text.slice(text.lastIndexOf('\n') + 1).replace(dialect.promptPattern, '');
  if (lastLine.length > 0) lines.push(lastLine);
  if (lines.length > 0 && dialect.stripPrompt(lines[0] ?? '').trim() === goCommand.trim())
    lines.shift();
  return lines.join('\n');
}
