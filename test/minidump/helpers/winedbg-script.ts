// Drives real winedbg over plain pipes for the minidump tests (the engine layer is someone else's
// and is not used here). With pipes winedbg prints no echo and no escapes, ends lines with \n and
// prints its prompt `Wine-dbg>` with no newline (see test/pty/terminal-text.test.ts), so "the output since my command
// ends with the prompt" is the whole framing. Every wait has a deadline; the child is always reaped.
import { spawn } from 'node:child_process';
import { wineEnv } from '../../helpers/wine.js';

/** The end of a reply: sample tail of the buffer: "…in 64-bit code (0x0000014000157a).\nWine-dbg>" */
const PROMPT = /Wine-dbg>\s*$/;

export interface WinedbgSession {
  /** Sends one command and resolves with its reply (text up to the next prompt). */
  command(text: string, timeoutMs?: number): Promise<string>;
  /** All output so far. */
  output(): string;
  /** Sends `kill` (when a target is attached) and `quit`, then waits for exit; kills on timeout. */
  close(options?: { killTarget?: boolean }): Promise<void>;
}

export async function startWinedbg(
  args: readonly string[],
  timeoutMs = 20_000,
): Promise<WinedbgSession> {
  const child = spawn('winedbg', [...args], { env: wineEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let buffer = '';
  let exited = false;
  const exitPromise = new Promise<void>((done) =>
    child.on('exit', () => ((exited = true), done())),
  );
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (buffer += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (buffer += chunk));

  const waitForPrompt = async (from: number, ms: number, what: string) => {
    const deadline = performance.now() + ms;
    for (;;) {
      const reply = buffer.slice(from);
      if (PROMPT.test(reply)) return reply.replace(PROMPT, '');
      if (exited)
        throw new Error(`winedbg exited while waiting for ${what}:\n${buffer.slice(-2000)}`);
      if (performance.now() > deadline) {
        throw new Error(`timed out after ${ms} ms waiting for ${what}:\n${buffer.slice(-2000)}`);
      }
      await new Promise((done) => setTimeout(done, 10));
    }
  };

  const session: WinedbgSession = {
    async command(text, ms = 20_000) {
      const from = buffer.length;
      child.stdin.write(`${text}\n`);
      return waitForPrompt(from, ms, `the reply to "${text}"`);
    },
    output: () => buffer,
    async close({ killTarget = true } = {}) {
      if (!exited) {
        try {
          if (killTarget) await session.command('kill', 10_000);
          child.stdin.write('quit\n');
          child.stdin.end();
        } catch {
          // fall through to the hard stop below
        }
      }
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exitPromise;
      clearTimeout(timer);
    },
  };
  try {
    await waitForPrompt(0, timeoutMs, 'the first prompt');
  } catch (error) {
    child.kill('SIGKILL');
    await exitPromise;
    throw error;
  }
  return session;
}
