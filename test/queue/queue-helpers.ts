// Shared by the queue tests: real `cdb-harness worker` processes (the CLI from source, as the
// other CLI tests run it) whose --json lines are collected as they come, and batches of dumps made
// from the committed example dumps: variants (the header's TimeDateStamp changed, so each has its
// own content and sha256 but the same crash) and plain copies (same content, another name).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisServer, redisAvailable } from '../helpers/redis-server.js';
import { REPO_ROOT } from '../helpers/wine.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import type { AnalyzeDumpRecord } from '../../src/report/analyze/analyze-record.js';

export const EXAMPLES = join(REPO_ROOT, 'examples', 'dumps');
export const CLI_ENTRY = join(REPO_ROOT, 'test', 'analyze', 'run-cli.ts');

export interface WorkerLine {
  type: string;
  jobId?: string;
  location?: string;
  /** `ready`: every queue the worker serves. */
  queues?: string[];
  pid: number;
  ok?: boolean;
  error?: { code: string; message: string };
}

export class WorkerProcess {
  readonly lines: WorkerLine[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private waiters: (() => void)[] = [];

  constructor(
    readonly child: ChildProcess,
    /** The worker's TMPDIR. */
    readonly tmp: string,
  ) {
    let partial = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      partial += chunk.toString();
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const part of parts)
        if (part.trim() !== '') this.lines.push(JSON.parse(part) as WorkerLine);
      for (const wake of this.waiters.splice(0)) wake();
    });
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
  }

  /** Waits until a line matches (or the deadline passes: an error naming what was awaited). */
  async waitFor(
    test: (line: WorkerLine) => boolean,
    what: string,
    timeoutMs = 60_000,
  ): Promise<WorkerLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(test);
      if (found !== undefined) return found;
      if (Date.now() > deadline)
        throw new Error(`worker ${String(this.child.pid)}: no ${what}\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  done(): WorkerLine[] {
    return this.lines.filter((l) => l.type === 'job-done');
  }

  async stop(
    signal: NodeJS.Signals = 'SIGTERM',
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}

/**
 * A worker in its own temp folder (TMPDIR): a worker killed with -9 cannot remove its scratch
 * folders, and the root hook would (rightly) report them as leaked.
 */
export function startWorker(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  /** A folder this worker cannot see (an empty tmpfs over it, in its own mount namespace). */
  blind?: string,
): WorkerProcess {
  const tmp = makeTempDir('queue-worker-tmp');
  // tsx's compile cache (<tmp>/tsx-<uid>, as test/hooks/temp-dirs.ts links it): shared, not redone.
  for (const entry of readdirSync(tmpdir())) {
    if (/^tsx-\d+$/.test(entry)) symlinkSync(join(tmpdir(), entry), join(tmp, entry));
  }
  const argv = [process.execPath, '--import', 'tsx', CLI_ENTRY, 'worker', '--json', ...args];
  const [file, ...rest] =
    blind === undefined
      ? argv
      : [
          ...['unshare', '--user', '--map-root-user', '--mount'],
          ...['sh', '-c', 'mount -t tmpfs none "$0" && exec "$@"', blind, ...argv],
        ];
  const child = spawn(file!, rest, {
    env: { ...env, TMPDIR: tmp, TMP: tmp, TEMP: tmp },
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new WorkerProcess(child, tmp);
}

/** Resolves once every worker printed its `ready` line (connected, queue named). */
export async function allReady(workers: readonly WorkerProcess[]): Promise<void> {
  await Promise.all(workers.map((w) => w.waitFor((l) => l.type === 'ready', 'ready line')));
}

const EXAMPLE_FILES = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith('.dmp'))
  .sort();

/**
 * `variants` dumps with distinct content (example i mod 5, TimeDateStamp + i) and `copies` exact
 * copies of the first ones, under distinct names in one new folder.
 */
export function dumpBatch(variants: number, copies = 0): string {
  const dir = makeTempDir('queue-in');
  const sources = EXAMPLE_FILES.map((f) => readFileSync(join(EXAMPLES, f)));
  for (let i = 0; i < variants; i++) {
    const bytes = Buffer.from(sources[i % sources.length]!);
    // MINIDUMP_HEADER.TimeDateStamp is the ULONG32 at offset 20 (minidumpapiset.h).
    bytes.writeUInt32LE((bytes.readUInt32LE(20) + i) >>> 0, 20);
    writeFileSync(join(dir, `v${String(i).padStart(5, '0')}.dmp`), bytes);
  }
  for (let i = 0; i < copies; i++) {
    copyFileSync(
      join(dir, `v${String(i % variants).padStart(5, '0')}.dmp`),
      join(dir, `copy${i}.dmp`),
    );
  }
  return dir;
}

const SCENARIOS = join(REPO_ROOT, 'test', 'emulator', 'scenarios');

/** A `cdb` for the workers: the emulator, scenario read from DUMP.scenario. */
export function fakeCdb(): string {
  const dir = makeTempDir('queue-cdb');
  const path = join(dir, 'cdb');
  const entry = join(REPO_ROOT, 'test', 'analyze', 'emulator-per-dump.ts');
  writeFileSync(path, `#!/bin/sh\nexec "${process.execPath}" --import tsx "${entry}" "$@"\n`, {
    mode: 0o755,
  });
  return path;
}

/** Dumps named NAME.dmp with NAME.dmp.scenario beside each (the emulator's reply for it). */
export function cdbInputs(scenarios: Record<string, string>): string {
  const variants = dumpBatch(Object.keys(scenarios).length);
  const dir = makeTempDir('queue-cdb-in');
  for (const [i, [name, scenario]] of Object.entries(scenarios).entries()) {
    copyFileSync(join(variants, `v${String(i).padStart(5, '0')}.dmp`), join(dir, name));
    writeFileSync(join(dir, `${name}.scenario`), join(SCENARIOS, scenario));
  }
  return dir;
}

/** The most jobs a worker ran at once, from its job-start and job-done/failed/abandoned lines. */
export function mostAtOnce(worker: WorkerProcess): number {
  let now = 0;
  let most = 0;
  for (const line of worker.lines) {
    if (line.type === 'job-start') most = Math.max(most, ++now);
    else if (['job-done', 'job-failed', 'job-abandoned'].includes(line.type)) now--;
  }
  return most;
}

export function readRecords(outDir: string): AnalyzeDumpRecord[] {
  return readFileSync(join(outDir, 'records.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AnalyzeDumpRecord);
}

/** file → bucket id (or the error code), the comparable part of a record. */
export function outcomes(records: readonly AnalyzeDumpRecord[]): Map<string, string> {
  return new Map(
    records.map((r) => [
      r.file,
      r.ok ? `ok ${r.bucket?.id ?? 'none'}` : `failed ${r.error?.code ?? ''}`,
    ]),
  );
}

/**
 * A record without what differs from run to run: timings (and the byte count an OUTPUT_LIMIT
 * message gives, which counts them), and the walk of a record whose walk ran out of its time
 * budget (a wall-clock budget on a loaded machine, issue 30 item 4: not this test's subject).
 */
function comparable(record: AnalyzeDumpRecord): string {
  const rest: AnalyzeDumpRecord = { ...record, timings: { totalMs: 0, commands: [] } };
  if (rest.error?.code === 'OUTPUT_LIMIT') {
    rest.error = { ...rest.error, message: rest.error.message.replace(/\d+ bytes/, 'N bytes') };
  }
  return JSON.stringify(rest);
}

function walkCut(record: AnalyzeDumpRecord): boolean {
  return record.warnings.some((w) => /time budget/.test(w));
}

export function recordLines(dir: string): string[] {
  return readFileSync(join(dir, 'records.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}

function byFile(dir: string): Map<string, AnalyzeDumpRecord> {
  return new Map(
    recordLines(dir).map((l) => {
      const r = JSON.parse(l) as AnalyzeDumpRecord;
      return [r.file, r];
    }),
  );
}

/** `file key: queued ≠ local` for each top-level field that differs (short values). */
function differences(
  queued: Map<string, AnalyzeDumpRecord>,
  local: Map<string, AnalyzeDumpRecord>,
): string[] {
  const out: string[] = [];
  for (const file of new Set([...queued.keys(), ...local.keys()])) {
    const q = queued.get(file);
    const l = local.get(file);
    if (q === undefined || l === undefined) {
      out.push(`${file}: only in ${q === undefined ? 'the local run' : 'the queue'}`);
      continue;
    }
    const a = JSON.parse(comparable(q)) as Record<string, unknown>;
    const b = JSON.parse(comparable(l)) as Record<string, unknown>;
    // A walk cut by its time budget on either side: only the identity and outcome compare.
    const keys = walkCut(q) || walkCut(l) ? ['file', 'sha256', 'ok', 'error'] : Object.keys(a);
    for (const key of new Set([...keys, ...(walkCut(q) || walkCut(l) ? [] : Object.keys(b))])) {
      const x = JSON.stringify(a[key]) ?? '';
      const y = JSON.stringify(b[key]) ?? '';
      if (x !== y) out.push(`${file} ${key}: ${x.slice(0, 200)} ≠ ${y.slice(0, 200)}`);
    }
  }
  return out;
}

/** Where the records of two --out folders differ (empty: the same records). */
export function recordDifferences(queuedDir: string, localDir: string): string[] {
  return differences(byFile(queuedDir), byFile(localDir));
}

/** Whether a worker can be made blind to a folder here (user and mount namespaces allowed). */
export function canBlind(): boolean {
  const dir = makeTempDir('queue-blind-probe');
  return (
    spawnSync(
      'unshare',
      ['--user', '--map-root-user', '--mount', 'sh', '-c', 'mount -t tmpfs none "$0"', dir],
      { stdio: 'ignore' },
    ).status === 0
  );
}

/** Whether any record of an --out folder had its walk cut by the time budget. */
export function anyWalkCut(dir: string): boolean {
  return [...byFile(dir).values()].some(walkCut);
}

/** The Redis server and the worker a queue test starts, ended after each test by the rig. */
export interface QueueRig {
  redis?: RedisServer | undefined;
  worker?: WorkerProcess | undefined;
}

/**
 * Call inside a `describe`: skips the suite where redis-server is missing, and after each test
 * kills the worker and stops the Redis server the test put on the rig.
 */
export function queueRigPerTest(): QueueRig {
  const rig: QueueRig = {};
  before(function () {
    if (!redisAvailable()) this.skip();
  });
  afterEach(async () => {
    await rig.worker?.stop('SIGKILL');
    rig.worker = undefined;
    await rig.redis?.stop();
    rig.redis = undefined;
  });
  return rig;
}

/** A fresh Redis server on a free loopback port, kept on the rig so that it is stopped. */
export async function startRigRedis(rig: QueueRig): Promise<RedisServer> {
  const redis = await RedisServer.start();
  rig.redis = redis;
  return redis;
}
