// The real Debugger Engine (build/dbgeng/cdb: dbgeng.dll under Wine through the test host) next to
// winedbg, in one process, on the same dump: session start (spawn -> first usable prompt) and the
// per-command round trip of the engine's framed execute() (`.echo X` vs winedbg `echo X`), runs
// alternating so both see the same machine noise. Needs scripts/setup-dbgeng.sh.
// Run: node --import tsx bench/dbgeng-vs-winedbg.ts [starts] [commands]
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DebuggerSession } from '../src/engine/debugger-session.js';
import { REPO_ROOT, wineEnv, wineRigReady } from '../test/helpers/wine.js';

const STARTS = Number(process.argv[2] ?? 5);
const COMMANDS = Number(process.argv[3] ?? 100);
const DUMP = join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp');
const CDB = join(REPO_ROOT, 'build', 'dbgeng', 'cdb');

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

function line(name: string, values: readonly number[]): string {
  return `${name.padEnd(34)} n=${String(values.length).padStart(4)}  median ${percentile(values, 50).toFixed(1).padStart(8)} ms  p95 ${percentile(values, 95).toFixed(1).padStart(8)} ms`;
}

async function open(dialect: 'cdb' | 'winedbg'): Promise<DebuggerSession> {
  return DebuggerSession.start({
    dialect,
    target: { kind: 'dump', path: DUMP },
    ...(dialect === 'cdb' ? { debuggerPath: CDB } : {}),
    env: wineEnv(),
  });
}

async function main(): Promise<void> {
  if (!wineRigReady() || !existsSync(CDB)) {
    console.log(
      'needs the Wine rig (scripts/setup.sh) and build/dbgeng/cdb (scripts/setup-dbgeng.sh); nothing measured.',
    );
    return;
  }
  const start = { cdb: [] as number[], winedbg: [] as number[] };
  for (let i = 0; i < STARTS; i++) {
    for (const dialect of ['cdb', 'winedbg'] as const) {
      const t0 = performance.now();
      const session = await open(dialect);
      start[dialect].push(performance.now() - t0);
      await session.close();
    }
  }
  const command = { cdb: [] as number[], winedbg: [] as number[] };
  const cdb = await open('cdb');
  const winedbg = await open('winedbg');
  try {
    for (let i = 0; i < COMMANDS; i++) {
      for (const [name, session, text] of [
        ['cdb', cdb, `.echo X${i}`],
        ['winedbg', winedbg, `echo X${i}`],
      ] as const) {
        const t0 = performance.now();
        const result = await session.execute(text);
        command[name].push(performance.now() - t0);
        if (result.output !== `X${i}`) throw new Error(`${name}: ${JSON.stringify(result.output)}`);
      }
    }
  } finally {
    await cdb.close();
    await winedbg.close();
  }
  console.log(`dump ${DUMP}`);
  console.log(`session start (spawn -> first usable prompt), ${STARTS} alternating runs`);
  console.log(line('dbgeng (build/dbgeng/cdb)', start.cdb));
  console.log(line('winedbg', start.winedbg));
  console.log(
    `dbgeng/winedbg median start = ${(percentile(start.cdb, 50) / percentile(start.winedbg, 50)).toFixed(2)}x`,
  );
  console.log(`\nframed execute() round trip, ${COMMANDS} alternating commands`);
  console.log(line('dbgeng .echo', command.cdb));
  console.log(line('winedbg echo', command.winedbg));
  console.log(
    `dbgeng/winedbg median round trip = ${(percentile(command.cdb, 50) / percentile(command.winedbg, 50)).toFixed(2)}x`,
  );
}

await main();
