// Keyboard side of the emulated console. cdb reads one line at a time and only while it sits at
// its prompt; what arrives meanwhile waits in the input buffer (a marker sent after `g` waits for
// the next stop: https://github.com/svnscha/mcp-windbg/issues/72). Ctrl-C is different: it is a
// console control event and reaches cdb at once.
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { EchoMode } from './scenario.js';

/**
 * Put the tty the emulator runs on into the mode the echo choice needs.
 * - conhost / none: `stty raw -echo`. No kernel echo, no line editing, `\x03` arrives as a byte
 *   and the kernel leaves output alone (no ONLCR), so the bytes we write are the bytes the client
 *   reads: CRLF, as from a ConPTY.
 * - tty: the Linux line discipline as node-pty leaves it (ECHO, ICANON, ISIG, OPOST+ONLCR). The
 *   kernel echoes as keys arrive, Ctrl-C becomes SIGINT, and our CRLF reaches the client as
 *   CR CR LF: the classic pty artefact.
 */
export function configureTty(mode: EchoMode, stdin: NodeJS.ReadStream): void {
  if (!stdin.isTTY || mode === 'tty') return;
  const result = spawnSync('stty', ['raw', '-echo'], { stdio: ['inherit', 'ignore', 'ignore'] });
  if (result.status !== 0) {
    // Without stty, libuv's raw mode is the next best thing (it keeps ONLCR, so CR CR LF again).
    stdin.setRawMode(true);
  }
}

export interface ConsoleInputEvents {
  interrupt: [];
  closed: [];
}

/** Lines typed so far, handed out one `readLine()` at a time, plus Ctrl-C and end-of-input events. */
export class ConsoleInput extends EventEmitter<ConsoleInputEvents> {
  private readonly lines: string[] = [];
  private partial = '';
  private skipLineFeed = false;
  private waiter: ((line: string | null) => void) | undefined;
  private ended = false;
  /** A hung debugger reads nothing and ignores Ctrl-C, yet SIGINT must not kill it either. */
  private deaf = false;
  private readonly onData = (chunk: Buffer | string): void => this.feed(chunk.toString());
  private readonly onEnd = (): void => this.close();
  private readonly onSigint = (): void => {
    if (!this.deaf) this.emit('interrupt');
  };

  constructor(private readonly stdin: NodeJS.ReadableStream) {
    super();
    stdin.on('data', this.onData);
    stdin.on('end', this.onEnd);
    stdin.on('error', this.onEnd);
    // In `tty` mode the line discipline turns Ctrl-C into SIGINT; anyone may also send one.
    process.on('SIGINT', this.onSigint);
  }

  /** The next complete line, or null once input has ended. */
  readLine(): Promise<string | null> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** From now on drop every line and every Ctrl-C (a hung debugger). */
  ignoreAll(): void {
    this.deaf = true;
    this.lines.length = 0;
  }

  /** Stop listening (the session is over). */
  dispose(): void {
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('error', this.onEnd);
    process.off('SIGINT', this.onSigint);
  }

  private close(): void {
    if (this.ended) return;
    this.ended = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(null);
    this.emit('closed');
  }

  private feed(text: string): void {
    if (this.deaf) return;
    for (const ch of text) {
      if (this.skipLineFeed) {
        this.skipLineFeed = false;
        if (ch === '\n') continue;
      }
      if (ch === '\x03') {
        this.emit('interrupt');
      } else if (ch === '\r' || ch === '\n') {
        this.skipLineFeed = ch === '\r';
        this.pushLine(this.partial);
        this.partial = '';
      } else if (ch === '\x7f' || ch === '\b') {
        this.partial = this.partial.slice(0, -1);
      } else {
        this.partial += ch;
      }
    }
  }

  private pushLine(line: string): void {
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter(line);
    } else {
      this.lines.push(line);
    }
  }
}
