// Test helper: the emulator on a raw node-pty, with the few waits a test needs. It deliberately
// does not use the engine, so the emulator's own behaviour can be checked byte for byte.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn, type IPty } from '@lydell/node-pty';
import type { Scenario } from './scenario.js';
import type { SessionRecord } from './session-state.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const EMULATOR = join(HERE, 'cdb-emulator.ts');
export const SCENARIOS = join(HERE, 'scenarios');
export const REPO_ROOT = resolve(HERE, '..', '..');

/** The node arguments that run the emulator; a debuggerCommandPrefix for the engine. */
export function emulatorPrefix(scenarioFile: string): { file: string; args: string[] } {
  return {
    file: process.execPath,
    args: ['--import', 'tsx', EMULATOR, '--scenario', scenarioFile],
  };
}

/** A scratch directory per test; `cleanup()` removes it. */
export class Scratch {
  readonly dir = mkdtempSync(join(tmpdir(), 'cdb-emulator-'));

  file(name: string): string {
    return join(this.dir, name);
  }

  /** Write an inline scenario and return its path. */
  scenario(scenario: Scenario, name = 'scenario.json'): string {
    const path = this.file(name);
    writeFileSync(path, JSON.stringify(scenario, null, 2));
    return path;
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface EmulatorPtyOptions {
  scenarioFile?: string;
  stateFile?: string;
  /** cdb arguments after the emulator's own. */
  cdbArgs?: readonly string[];
  /** Replaces everything after `EMULATOR` (for `--replay`). */
  rawArgs?: readonly string[];
}

export class EmulatorPty {
  /** Every byte read so far, exactly as the pty delivered it. */
  output = '';
  /** How many reads delivered it (one per pty data event). */
  reads = 0;
  readonly exited: Promise<{ exitCode: number; signal?: number | undefined }>;
  private readonly pty: IPty;
  private readonly listeners = new Set<() => void>();

  constructor(options: EmulatorPtyOptions) {
    const own = [
      ...(options.scenarioFile === undefined ? [] : ['--scenario', options.scenarioFile]),
      ...(options.stateFile === undefined ? [] : ['--state', options.stateFile]),
    ];
    const args = options.rawArgs ?? [...own, ...(options.cdbArgs ?? ['-z', 'C:\\dumps\\x.dmp'])];
    this.pty = spawn(process.execPath, ['--import', 'tsx', EMULATOR, ...args], {
      name: 'xterm',
      cols: 32000,
      rows: 50,
      cwd: REPO_ROOT,
      env: process.env,
    });
    this.pty.onData((data) => {
      this.output += data;
      this.reads += 1;
      for (const listener of this.listeners) listener();
    });
    this.exited = new Promise((done) => {
      this.pty.onExit((exit) => {
        done(exit);
        for (const listener of this.listeners) listener();
      });
    });
  }

  write(data: string): void {
    this.pty.write(data);
  }

  /** Output after `from` (an offset into `output`). */
  since(from: number): string {
    return this.output.slice(from);
  }

  /** Wait until `output` (from `from` on) satisfies the test; rejects with what was seen. */
  waitFor(
    test: string | RegExp | ((text: string) => boolean),
    { from = 0, timeoutMs = 8000 }: { from?: number; timeoutMs?: number } = {},
  ): Promise<string> {
    const check = (): boolean => {
      const text = this.output.slice(from);
      if (typeof test === 'string') return text.includes(test);
      if (test instanceof RegExp) return test.test(text);
      return test(text);
    };
    return new Promise((resolveWait, rejectWait) => {
      const listener = (): void => {
        if (!check()) return;
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolveWait(this.output.slice(from));
      };
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        rejectWait(
          new Error(
            `timed out waiting for ${String(test)}; output: ${JSON.stringify(this.output.slice(from).slice(-600))}`,
          ),
        );
      }, timeoutMs);
      this.listeners.add(listener);
      listener();
    });
  }

  /** Wait for the prompt at the very end of the output (no newline after it). */
  waitForPrompt(from = 0, prompt = '0:000> ', timeoutMs = 8000): Promise<string> {
    return this.waitFor((text) => text.endsWith(prompt), { from, timeoutMs });
  }

  /** Resolves with the exit, or rejects after the deadline (the test then kills). */
  async waitForExit(timeoutMs = 8000): Promise<{ exitCode: number; signal?: number | undefined }> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.exited,
        new Promise<never>((_, rejectWait) => {
          timer = setTimeout(() => rejectWait(new Error('emulator did not exit')), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Send a signal to the emulator (SIGHUP: the pty went away; SIGTERM: killed). */
  signal(name: 'SIGHUP' | 'SIGTERM' | 'SIGINT'): void {
    this.pty.kill(name);
  }

  /** Ends the emulator if it still runs and waits until it is reaped. */
  async close(): Promise<void> {
    try {
      this.pty.kill('SIGKILL');
    } catch {
      // Already gone.
    }
    await this.waitForExit(5000).catch(() => undefined);
  }
}

export function readState(file: string): SessionRecord {
  return JSON.parse(readFileSync(file, 'utf8')) as SessionRecord;
}
