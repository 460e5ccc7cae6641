// A child process on a pseudo-terminal. Everything terminal-specific stops here: callers get clean
// text (escape sequences stripped, `\r\r\n`/`\r\n` → `\n`) through onData, or the exact bytes
// through onRawData for transcripts.
import type { IPty } from '@lydell/node-pty';
import { killTree as killProcessTree } from '../platform/index.js';
import { closeConsoleAtExit, releaseConptyHandles } from '../platform/windows/pty-release.js';
import {
  hangupProofCommand,
  startOrphanGuard,
  type OrphanGuard,
} from '../platform/wine/orphan-guard.js';
import { isWindowsHost } from '../platform/common/host.js';
import { loadNodePty } from './node-pty.js';
import { TerminalTextDecoder } from './terminal-text.js';
import { dict } from '../common/dict.js';

export interface PtyProcessOptions {
  file: string;
  args: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Very wide by default so debugger lines are never wrapped by the terminal. */
  cols?: number;
  rows?: number;
  /**
   * The child debugs a live target that must outlive the harness: on a Unix host the child ignores
   * the terminal's hang-up and a guard breaks it in when the harness dies without ending it
   * (../platform/wine/orphan-guard.ts). Nothing changes on Windows.
   */
  guardLiveTarget?: boolean;
  /**
   * Windows: the pseudo console stays open after the child exits, as a program the child launched
   * is attached to it and would be ended with it (node-pty #965). Otherwise it is closed as soon as
   * the child exits, so the exit is reported after conhost's last output instead of after
   * node-pty's 1 s quiet timer (../platform/windows/pty-release.ts). Nothing changes on Linux.
   */
  keepConsoleAtExit?: boolean;
}

export interface PtyExit {
  exitCode: number | null;
  signal: number | null;
}

const DEFAULT_COLS = 32000;
const DEFAULT_ROWS = 50;
/** How long killTree waits for the exit event after the tree is gone (it can lag behind the tree's end under Wine). */
const EXIT_EVENT_GRACE_MS = 3000;

export class PtyProcess {
  readonly pid: number;
  readonly exited: Promise<PtyExit>;
  private readonly pty: IPty;
  private readonly decoder = new TerminalTextDecoder();
  private readonly dataListeners = new Set<(text: string) => void>();
  private readonly rawListeners = new Set<(raw: string) => void>();
  private readonly exitListeners = new Set<(exit: PtyExit) => void>();
  private exitInfo: PtyExit | null = null;
  private readonly guard: OrphanGuard | null;

  private constructor(pty: IPty, guarded: boolean) {
    this.pty = pty;
    this.pid = pty.pid;
    this.guard = guarded ? startOrphanGuard(pty.pid) : null;
    let resolveExit: (exit: PtyExit) => void = () => undefined;
    this.exited = new Promise((resolve) => (resolveExit = resolve));
    pty.onData((raw) => {
      for (const listener of this.rawListeners) listener(raw);
      const text = this.decoder.push(raw);
      if (text.length === 0) return;
      for (const listener of this.dataListeners) listener(text);
    });
    pty.onExit(({ exitCode, signal }) => {
      const exit: PtyExit = {
        exitCode: signal !== undefined && signal !== 0 ? null : exitCode,
        signal: signal !== undefined && signal !== 0 ? signal : null,
      };
      this.exitInfo = exit;
      void this.guard?.release();
      // ConPTY's pipes and worker would keep a Windows CLI run alive forever (pty-release.ts).
      if (isWindowsHost()) releaseConptyHandles(pty);
      for (const listener of this.exitListeners) listener(exit);
      resolveExit(exit);
    });
  }

  static spawn(options: PtyProcessOptions): PtyProcess {
    const env: Record<string, string> = dict();
    for (const [key, value] of Object.entries(options.env ?? process.env)) {
      if (value !== undefined) env[key] = value;
    }
    const guarded = options.guardLiveTarget === true && !isWindowsHost();
    const command = guarded
      ? hangupProofCommand(options.file, options.args)
      : { file: options.file, args: [...options.args] };
    const pty = loadNodePty().spawn(command.file, command.args, {
      name: 'xterm',
      cols: options.cols ?? DEFAULT_COLS,
      rows: options.rows ?? DEFAULT_ROWS,
      cwd: options.cwd ?? process.cwd(),
      env,
    });
    if (isWindowsHost() && options.keepConsoleAtExit !== true) closeConsoleAtExit(pty);
    return new PtyProcess(pty, guarded);
  }

  get exitStatus(): PtyExit | null {
    return this.exitInfo;
  }

  onData(listener: (text: string) => void): () => void {
    this.dataListeners.add(listener);
    return () => this.dataListeners.delete(listener);
  }

  onRawData(listener: (raw: string) => void): () => void {
    this.rawListeners.add(listener);
    return () => this.rawListeners.delete(listener);
  }

  onExit(listener: (exit: PtyExit) => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  write(text: string): void {
    if (this.exitInfo) return;
    try {
      this.pty.write(text);
    } catch {
      // The child is going away; its exit event reports that.
    }
  }

  /** Ctrl-C: the terminal turns it into SIGINT (Linux, ISIG on) or a console control event. */
  interrupt(): void {
    this.write('\x03');
  }

  /** Ends the process and all its descendants; resolves when reaped or after a deadline. */
  async killTree(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    // The harness ends the debugger itself: the guard must not break into what is left.
    await this.guard?.release();
    if (this.exitInfo) return;
    await killProcessTree(this.pid, { signal });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.exited,
        new Promise<void>((done) => (timer = setTimeout(done, EXIT_EVENT_GRACE_MS))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
