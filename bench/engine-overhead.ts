// Engine overhead against real winedbg, measured in one process:
// 1. per command: a raw pty round trip (`echo X\r`, wait for `Wine-dbg>`) on a bare PtyProcess
//    versus session.execute('echo X') (which also sends its end marker in the same write);
//    samples alternate between the two so both see the same machine noise;
// 2. start: spawn → first usable prompt, raw pty versus DebuggerSession.start().
// Both debuggers are attached to their own idle.exe. Run: node --import tsx bench/engine-overhead.ts [samples] [starts]
import { DebuggerSession } from '../src/engine/debugger-session.js';
import { MarkerSource } from '../src/engine/marker.js';
import { getDialect } from '../src/engine/dialects/index.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { PtyProcess } from '../src/pty/pty-process.js';
import { killAllTargets, startTarget, wineEnv, wineRigReady } from '../test/helpers/wine.js';

const SAMPLES = Number(process.argv[2] ?? 300);
const STARTS = Number(process.argv[3] ?? 10);
/** Quiet time after every measurement, so no sample overlaps a debugger's leftover work. */
const SETTLE_MS = 15;
const winedbg = getDialect('winedbg');

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

function describe(name: string, values: readonly number[]): string {
  return `${name.padEnd(28)} n=${String(values.length).padStart(4)}  median ${percentile(values, 50).toFixed(2).padStart(7)} ms  p95 ${percentile(values, 95).toFixed(2).padStart(7)} ms  min ${Math.min(...values).toFixed(2)} ms`;
}

/** A raw pty to winedbg: write, then wait until the clean text ends in the prompt. */
class RawWinedbg {
  private text = '';
  private waiter: (() => void) | null = null;
  readonly pty: PtyProcess;

  constructor(pid: number) {
    const spawn = winedbg.spawnCommand('winedbg', [String(pid)]);
    this.pty = PtyProcess.spawn({ file: spawn.file, args: spawn.args, env: wineEnv() });
    this.pty.onData((chunk) => {
      this.text += chunk;
      if (this.waiter && winedbg.isPrompt(this.text.slice(this.text.lastIndexOf('\n') + 1))) {
        const done = this.waiter;
        this.waiter = null;
        done();
      }
    });
  }

  prompt(timeoutMs = 30_000): Promise<void> {
    if (winedbg.isPrompt(this.text.slice(this.text.lastIndexOf('\n') + 1))) {
      this.text = '';
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no prompt; got ${JSON.stringify(this.text.slice(-200))}`)),
        timeoutMs,
      );
      this.waiter = () => {
        clearTimeout(timer);
        this.text = '';
        resolve();
      };
    });
  }

  async roundTrip(command: string): Promise<number> {
    this.text = '';
    const started = performance.now();
    const prompted = this.prompt();
    this.pty.write(`${command}\r`);
    await prompted;
    return performance.now() - started;
  }

  /** The same framing the engine uses, by hand: command and marker in one write. */
  async framedRoundTrip(command: string, marker: string): Promise<number> {
    this.text = '';
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no marker')), 30_000);
      const check = () => {
        if (
          this.text.includes(`\n${marker}\n`) &&
          winedbg.isPrompt(this.text.slice(this.text.lastIndexOf('\n') + 1))
        ) {
          clearTimeout(timer);
          off();
          resolve();
        }
      };
      const off = this.pty.onData(check);
      this.pty.write(`${command}\r${winedbg.markerCommand(marker)}\r`);
    });
    return performance.now() - started;
  }

  async end(): Promise<void> {
    await this.roundTrip('detach');
    this.pty.write('quit\r');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.pty.exited, new Promise((done) => (timer = setTimeout(done, 5000)))]);
    clearTimeout(timer);
  }
}

async function main(): Promise<void> {
  if (!wineRigReady()) {
    console.log('Wine rig not ready (run scripts/setup.sh); nothing measured.');
    return;
  }
  const targetA = await startTarget('idle', ['200', '0']);
  const targetB = await startTarget('idle', ['200', '0']);
  try {
    // ---- per-command overhead ----
    const raw = new RawWinedbg(targetA.pid);
    await raw.prompt();
    const session = await DebuggerSession.start({
      dialect: 'winedbg',
      target: { kind: 'attach', pid: targetB.pid },
      env: wineEnv(),
    });
    for (let i = 0; i < 20; i++) {
      await raw.roundTrip(`echo warm${i}`);
      await session.execute(`echo warm${i}`);
    }
    const rawMarkers = new MarkerSource();
    const internalMs: number[] = [];
    let lastChunkAt = 0;
    session.onOutput(() => (lastChunkAt = performance.now()));
    const rawMs: number[] = [];
    const framedMs: number[] = [];
    const engineMs: number[] = [];
    const diffMs: number[] = [];
    const diffFramedMs: number[] = [];
    // Each measurement starts with both debuggers idle: the engine hands a result over before its
    // marker's own reply has arrived (one round trip per command), and that reply must not run
    // on the machine's 2 cores during the next raw sample.
    const settle = () => sleep(SETTLE_MS);
    for (let i = 0; i < SAMPLES; i++) {
      const r = await raw.roundTrip(`echo X${i}`);
      await settle();
      // The same marker shape the engine sends (winedbg's echo cost grows with its length).
      const f = await raw.framedRoundTrip(`echo Y${i}`, rawMarkers.next());
      await settle();
      const started = performance.now();
      const result = await session.execute(`echo X${i}`);
      const resolvedAt = performance.now();
      // The engine's own share: from the debugger's chunk that completed the output (the prompt
      // and the marker command's echo) reaching the session to execute() resolving. Read before
      // the settle: the marker's own reply arrives after the result was handed over.
      const completedAt = lastChunkAt;
      await settle();
      const e = resolvedAt - started;
      internalMs.push(resolvedAt - completedAt);
      if (result.output !== `X${i}`)
        throw new Error(`unexpected output ${JSON.stringify(result.output)}`);
      rawMs.push(r);
      framedMs.push(f);
      engineMs.push(e);
      diffMs.push(e - r);
      diffFramedMs.push(e - f);
    }
    await raw.end();
    await session.close();

    console.log(`winedbg per-command round trip (echo), ${SAMPLES} alternating samples`);
    console.log(describe('raw pty round trip', rawMs));
    console.log(describe('raw pty, command + marker', framedMs));
    console.log(describe('engine execute()', engineMs));
    console.log(describe('engine - raw (paired)', diffMs));
    console.log(describe('engine - raw+marker (paired)', diffFramedMs));
    console.log(describe('engine internal (last chunk → resolve)', internalMs));
    console.log(
      `median(engine) - median(raw) = ${(percentile(engineMs, 50) - percentile(rawMs, 50)).toFixed(2)} ms; p95(engine) - p95(raw) = ${(percentile(engineMs, 95) - percentile(rawMs, 95)).toFixed(2)} ms   (goal: overhead median <= 1 ms, p95 <= 3 ms)`,
    );

    // ---- start time ----
    const rawStart: number[] = [];
    const engineStart: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      const t0 = performance.now();
      const r = new RawWinedbg(targetA.pid);
      await r.prompt();
      rawStart.push(performance.now() - t0);
      await r.end();

      const t1 = performance.now();
      const s = await DebuggerSession.start({
        dialect: 'winedbg',
        target: { kind: 'attach', pid: targetA.pid },
        env: wineEnv(),
      });
      engineStart.push(performance.now() - t1);
      await s.close();
    }
    console.log(
      `\nwinedbg attach start (spawn -> first usable prompt), ${STARTS} alternating runs`,
    );
    console.log(describe('raw pty start', rawStart));
    console.log(describe('DebuggerSession.start()', engineStart));
    const ratio = percentile(engineStart, 50) / percentile(rawStart, 50);
    console.log(`engine/raw median start = ${(ratio * 100).toFixed(1)} %   (goal: within 10 %)`);
    console.log(
      `targets still running after all detaches: ${String(await targetA.isRunning(1500))}, ${String(await targetB.isRunning(1500))}`,
    );
  } finally {
    await killAllTargets();
  }
}

await main();
