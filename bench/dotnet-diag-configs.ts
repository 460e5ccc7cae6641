// bench: what an exception session costs the target, per session configuration, side by side.
// The lab's C# program (build/dotnet/linux-x64/cdbh-dotnet storm: 2 threads, each unit of work one
// throw and caught plus --work iterations of a hash loop) runs unwatched and watched in turn
// (U A U B U C …, --rounds times); the program prints its own CPU time over the storm (`cpu=`),
// which the machine's load moves much less than its wall-clock rate. Figures per configuration:
//   extra µs/throw  the target's CPU per unit watched minus its median unwatched, per throw (the
//                   runtime's work for the session's events: payloads, stack walks, buffers)
//   kept (CPU)      unwatched CPU per unit / watched CPU per unit
//   kept (wall)     median watched units/s / median unwatched units/s (the client competes too)
//   client CPU      the client's CPU while the storm ran, ms
// Configurations (--configs, comma-separated; the client runs at nice 10 as watch runs it):
//   unfiltered     cdbh-diag --no-filter: the session watch ran before event ID filters (Verbose:
//                  every exception event, catch/finally included; stacks; heartbeat)
//   chosen         cdbh-diag as watch runs it: the same with an allow-list of the event IDs a
//                  record needs (ExceptionThrown_V1 and the three that name frames)
//   no-heartbeat   chosen without the 100 ms counters heartbeat
//   throw-stack    cdbh-diag --no-stacks: ExceptionThrown_V1 alone (level Error), the runtime still
//                  walks its stack (frames not named)
//   floor          --no-stacks --no-walk --heartbeat-ms 0: ExceptionThrown_V1 alone, no stack walk,
//                  nothing else: the least any EventPipe session with the exception keyword costs
//   trace4, trace2 dotnet-trace collect --providers Microsoft-Windows-DotNETRuntime:0x8000:4 (:2),
//                  when --dotnet-trace PATH is given (`dotnet tool install dotnet-trace`)
//   node --import tsx bench/dotnet-diag-configs.ts [--seconds 6] [--rounds 2] [--rate 0] [--busy]
//     [--work 2000] [--configs unfiltered,chosen,floor] [--dotnet-trace PATH]
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { findDiagHelper } from '../src/engine/dialects/dotnet-diag/index.js';
import { option } from './bench-options.js';

const PROGRAM = join(import.meta.dirname, '..', 'build', 'dotnet', 'linux-x64', 'cdbh-dotnet');
const TICK_MS = 10; // USER_HZ 100: /proc/PID/stat counts CPU in 10 ms ticks
const HELPER_ARGS: Record<string, string[]> = {
  unfiltered: ['--no-filter'],
  chosen: [],
  'no-heartbeat': ['--heartbeat-ms', '0'],
  'throw-stack': ['--no-stacks'],
  floor: ['--no-stacks', '--no-walk', '--heartbeat-ms', '0'],
};
const TRACE_LEVEL: Record<string, string> = { trace4: '4', trace2: '2' };

interface Result {
  unitsPerSec: number;
  cpuUsPerUnit: number;
  unitsPerThrow: number;
  clientCpuMs: number;
}

function cpuMsOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return NaN; // already gone
  }
}

function median(values: number[]): number {
  const s = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  return s.length === 0
    ? NaN
    : (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2;
}

/** Spawns `file args`, resolves once a line of its output matches `ready` (or it ends). */
function startClient(file: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp) {
  const child = spawn(file, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  if (child.pid !== undefined) setPriority(child.pid, 10);
  let out = '';
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const on = new Promise<void>((resolve, reject) => {
    let isOn = false;
    const seen = (c: Buffer) => {
      if (isOn) return; // once on, its output (every event) is read and dropped
      out += c.toString('utf8');
      isOn = ready.test(out);
      if (isOn) resolve();
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    void closed.then(() =>
      reject(new Error(`${file} ended before its session: ${out.slice(-400)}`)),
    );
  });
  const timer = setTimeout(() => child.kill(), 120_000);
  void closed.then(() => clearTimeout(timer));
  return { child, on, closed };
}

async function runOnce(config: string, tracePath: string | undefined): Promise<Result> {
  const tmp = mkdtempSync(join(tmpdir(), 'cdbh-bench-configs-'));
  const env = { ...process.env, TMPDIR: tmp };
  const release = join(tmp, 'go');
  const args = ['storm', '--wait-file', release, '--seconds', option('--seconds', '6')];
  args.push('--rate', option('--rate', '0'), '--threads', '2', '--work', option('--work', '2000'));
  if (process.argv.includes('--busy')) args.push('--busy');
  const program = spawn(PROGRAM, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  program.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  const done = new Promise<void>((resolve) => program.once('close', () => resolve()));
  let client: { child: ChildProcess; on: Promise<void>; closed: Promise<void> } | undefined;
  try {
    const until = Date.now() + 30_000;
    while (!/^PID \d+$/m.test(out)) {
      if (Date.now() > until) throw new Error('the storm program did not start');
      await new Promise((r) => setTimeout(r, 20));
    }
    const pid = String(program.pid);
    const helper = findDiagHelper();
    if (HELPER_ARGS[config] !== undefined && helper !== undefined) {
      const helperArgs = [...helper.args, 'exceptions', '--pid', pid, ...HELPER_ARGS[config]];
      client = startClient(helper.file, helperArgs, env, /"kind":"ready"/);
    } else if (TRACE_LEVEL[config] !== undefined && tracePath !== undefined) {
      const providers = `Microsoft-Windows-DotNETRuntime:0x8000:${TRACE_LEVEL[config]}`;
      const traceArgs = [
        'collect',
        '-p',
        pid,
        '--providers',
        providers,
        '-o',
        join(tmp, 't.nettrace'),
      ];
      client = startClient(tracePath, traceArgs, env, /Output File/);
    } else if (config !== 'unwatched') throw new Error(`unknown configuration ${config}`);
    await client?.on;
    const clientCpuAtStart = cpuMsOf(client?.child.pid);
    // The helper ends with its target: its CPU is sampled while both run, the last sample kept.
    let clientCpuMs = NaN;
    const sampler = setInterval(() => {
      const now = cpuMsOf(client?.child.pid) - clientCpuAtStart;
      if (!Number.isNaN(now)) clientCpuMs = now;
    }, 100);
    writeFileSync(release, '');
    await done;
    clearInterval(sampler);
    // storm thrown=48211 work=48211 ms=6001 threads=2 cpu=11790
    const m = /^storm thrown=(\d+) work=(\d+) ms=(\d+) threads=\d+ cpu=(\d+)/m.exec(out);
    if (m === null) throw new Error(`no storm line in: ${out.slice(-300)}`);
    const work = Number(m[2]);
    return {
      unitsPerSec: (work * 1000) / Number(m[3]),
      cpuUsPerUnit: (Number(m[4]) * 1000) / work,
      unitsPerThrow: work / Number(m[1]),
      clientCpuMs,
    };
  } finally {
    program.kill();
    client?.child.stdin?.end('{"op":"stop"}\n');
    if (client !== undefined) await client.closed;
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (process.platform !== 'linux' || !existsSync(PROGRAM) || findDiagHelper() === undefined) {
    console.log('needs Linux, build/dotnet/linux-x64/cdbh-dotnet and cdbh-diag (npm run setup)');
    return;
  }
  const tracePath = process.argv.includes('--dotnet-trace')
    ? option('--dotnet-trace', '')
    : undefined;
  const configs = option('--configs', 'unfiltered,chosen,floor').split(',');
  const rounds = Number(option('--rounds', '2'));
  const results = new Map<string, Result[]>([['unwatched', []]]);
  for (let round = 0; round < rounds; round++) {
    for (const config of configs) {
      for (const name of ['unwatched', config]) {
        const r = await runOnce(name, tracePath);
        results.set(name, [...(results.get(name) ?? []), r]);
        console.log(
          `${name}: ${r.unitsPerSec.toFixed(0)} units/s, target CPU ${r.cpuUsPerUnit.toFixed(2)} µs/unit` +
            (name === 'unwatched' ? '' : `, client CPU ${r.clientCpuMs.toFixed(0)} ms`),
        );
      }
    }
  }
  const plain = results.get('unwatched')!;
  const plainCpu = median(plain.map((r) => r.cpuUsPerUnit));
  const plainRate = median(plain.map((r) => r.unitsPerSec));
  console.log(
    `unwatched (median of ${plain.length}): ${plainRate.toFixed(0)} units/s, ${plainCpu.toFixed(2)} µs/unit`,
  );
  for (const config of configs) {
    const list = results.get(config)!;
    const extras = list.map((r) => ((r.cpuUsPerUnit - plainCpu) * r.unitsPerThrow).toFixed(1));
    const kept = list.map((r) => ((plainCpu / r.cpuUsPerUnit) * 100).toFixed(0));
    const wall = (median(list.map((r) => r.unitsPerSec)) / plainRate) * 100;
    console.log(
      `${config}: extra ${extras.join(', ')} µs/throw; kept (CPU) ${kept.join(', ')} %; ` +
        `kept (wall, medians) ${wall.toFixed(1)} %; client CPU ${list.map((r) => r.clientCpuMs.toFixed(0)).join(', ')} ms`,
    );
  }
}

await main();
