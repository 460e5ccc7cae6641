// bench: the two clients of the .NET diagnostics channel side by side, on the same exception
// session (Microsoft-Windows-DotNETRuntime, exception keyword, level Error) of the lab's C# program
// (build/dotnet/linux-x64/cdbh-dotnet storm, paced):
//   cdbh-diag   the .NET helper watch uses (NETCore.Client + TraceEvent: every event decoded,
//               an NDJSON line each), run with --no-stacks --heartbeat-ms 0
//   ipc-client  the minimal TypeScript client (src/engine/dialects/dotnet-diag/ipc-client.ts): the
//               IPC handshake and the nettrace framing, events counted from their headers, nothing
//               decoded (a lower bound for a TypeScript client: no payloads, metadata, stacks, names)
// Figures: start-up (spawn or connect -> session on), client CPU per 1,000 events, runs A B A B.
//   node --import tsx bench/dotnet-diag-clients.ts [--rate 5000] [--seconds 8] [--rounds 2]
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { findDiagHelper } from '../src/engine/dialects/dotnet-diag/index.js';
import { startIpcTrace } from '../src/engine/dialects/dotnet-diag/ipc-client.js';
import { option } from './bench-options.js';

const PROGRAM = join(import.meta.dirname, '..', 'build', 'dotnet', 'linux-x64', 'cdbh-dotnet');
const TICK_MS = 10; // USER_HZ 100: /proc/PID/stat counts CPU in 10 ms ticks

interface Target {
  child: ChildProcess;
  pid: number;
  env: NodeJS.ProcessEnv;
  release: string;
  done: Promise<string>;
  tmp: string;
}

async function startStorm(seconds: string, rate: string): Promise<Target> {
  const tmp = mkdtempSync(join(tmpdir(), 'cdbh-bench-clients-'));
  const release = join(tmp, 'go');
  const env = { ...process.env, TMPDIR: tmp };
  const args = ['storm', '--wait-file', release, '--seconds', seconds, '--rate', rate];
  const child = spawn(PROGRAM, [...args, '--threads', '2', '--work', '200'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  const done = new Promise<string>((resolve) => child.once('close', () => resolve(out)));
  const until = Date.now() + 30_000;
  while (!/^PID \d+$/m.test(out)) {
    if (Date.now() > until) throw new Error('the storm program did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  return { child, pid: child.pid ?? 0, env, release, done, tmp };
}

function thrown(out: string): number {
  // storm thrown=40000 work=40000 ms=8001 threads=2
  const m = /^storm thrown=(\d+)/m.exec(out);
  return m === null ? NaN : Number(m[1]);
}

function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

interface Figures {
  startMs: number;
  cpuMs: number;
  events: number;
}

async function viaHelper(target: Target): Promise<Figures> {
  const helper = findDiagHelper();
  if (helper === undefined) throw new Error('cdbh-diag is not built');
  const started = performance.now();
  const args = [...helper.args, 'exceptions', '--pid', String(target.pid)];
  const child = spawn(helper.file, [...args, '--no-stacks', '--heartbeat-ms', '0'], {
    env: { ...target.env, DOTNET_EnableDiagnostics: '0' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let events = 0;
  let startMs = NaN;
  let cpuAtReady = 0;
  const ready = new Promise<void>((resolve) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('{"kind":"exception"')) events++;
      else if (line.startsWith('{"kind":"ready"')) {
        startMs = performance.now() - started;
        cpuAtReady = cpuMsOf(child.pid ?? 0);
        resolve();
      }
    });
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  await ready;
  writeFileSync(target.release, '');
  const out = await target.done;
  // The helper is still on (its stream ends a moment after the target): its CPU since ready.
  const cpuMs = cpuMsOf(child.pid ?? 0) - cpuAtReady;
  child.stdin?.end('{"op":"stop"}\n');
  await exited;
  return { startMs, cpuMs, events: Number.isNaN(thrown(out)) ? events : thrown(out) };
}

async function viaIpc(target: Target): Promise<Figures> {
  const started = performance.now();
  const trace = await startIpcTrace(
    target.pid,
    [{ name: 'Microsoft-Windows-DotNETRuntime', keywords: 0x8000n, level: 2 }],
    { env: target.env },
  );
  const startMs = performance.now() - started;
  const cpu = process.cpuUsage();
  writeFileSync(target.release, '');
  const out = await target.done;
  const counts = await trace.ended.catch(() => trace.counts);
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  if (counts.events < thrown(out))
    console.log(`  ipc-client: counted ${counts.events} of ${thrown(out)}`);
  return { startMs, cpuMs, events: counts.events };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2;
}

async function main(): Promise<void> {
  if (process.platform !== 'linux' || !existsSync(PROGRAM) || findDiagHelper() === undefined) {
    console.log('needs Linux, build/dotnet/linux-x64/cdbh-dotnet and cdbh-diag (npm run setup)');
    return;
  }
  const rate = option('--rate', '5000');
  const seconds = option('--seconds', '8');
  const rounds = Number(option('--rounds', '2'));
  const runs: Record<'cdbh-diag' | 'ipc-client', Figures[]> = { 'cdbh-diag': [], 'ipc-client': [] };
  for (let i = 0; i < rounds; i++) {
    for (const name of ['cdbh-diag', 'ipc-client'] as const) {
      const target = await startStorm(seconds, rate);
      try {
        const f = name === 'cdbh-diag' ? await viaHelper(target) : await viaIpc(target);
        runs[name].push(f);
        console.log(
          `${name}: start ${f.startMs.toFixed(0)} ms, CPU ${f.cpuMs.toFixed(0)} ms for ${f.events} events ` +
            `(${((f.cpuMs * 1000) / f.events).toFixed(1)} ms per 1,000)`,
        );
      } finally {
        target.child.kill();
        rmSync(target.tmp, { recursive: true, force: true });
      }
    }
  }
  for (const [name, list] of Object.entries(runs)) {
    console.log(
      `${name} (median of ${list.length}): start ${median(list.map((f) => f.startMs)).toFixed(0)} ms; ` +
        `${median(list.map((f) => (f.cpuMs * 1000) / f.events)).toFixed(1)} ms CPU per 1,000 events`,
    );
  }
}

await main();
