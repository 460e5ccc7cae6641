// A full-memory dump (mdw.exe, MiniDumpWithFullMemory) of a copy of threads.exe, walked after the
// copy is deleted from disk: every image the walk needs must come from the dump's own memory,
// and every thread's stack must reach the program's code where the source says it waits
// (`worker` → WaitForSingleObject for the workers, `main` → Sleep for the first thread). The
// function addresses come from the program's own symbol table (mingw nm), not from the walker.
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectJson } from '../../src/report/inspect/index.js';
import { processSupplied } from '../helpers/supplied.js';
import { pollUntil, targetPath, wineEnv, wineRigReady } from '../helpers/wine.js';
import { dumpWithMdw } from '../minidump/helpers/real-dumps.js';

/**
 * Where function `name` starts and the next symbol starts, from the unstripped mingw binary's
 * symbol table sorted by address (`nm -n`).
 */
function functionRange(exe: string, name: string): [bigint, bigint] {
  const nm = spawnSync('x86_64-w64-mingw32-nm', ['-n', exe], { encoding: 'utf8' });
  // Sample nm lines: "0000000140001530 t worker", "00000001400015bb T main"
  const lines = nm.stdout.split('\n').filter((l) => /^[0-9a-f]{16} [tT] \S+$/.test(l));
  const at = lines.findIndex((l) => l.endsWith(` ${name}`));
  const address = (l: string | undefined) => (l === undefined ? 0n : BigInt(`0x${l.slice(0, 16)}`));
  const start = address(lines[at]);
  const next = lines.slice(at + 1).find((l) => address(l) > start);
  return [start, address(next)];
}

describe('stack walk of a full-memory dump whose exe is gone', function () {
  this.timeout(180_000);
  let dir: string;
  let dumpPath: string;
  let workers: number[];
  let worker: [bigint, bigint];
  let main: [bigint, bigint];

  before(async function () {
    if (!wineRigReady()) return this.skip();
    const nm = spawnSync('sh', ['-c', 'command -v x86_64-w64-mingw32-nm']);
    if (nm.status !== 0) return this.skip();
    dir = mkdtempSync(join(tmpdir(), 'cdbh-fullwalk-'));
    const exe = join(dir, 'walkme.exe');
    copyFileSync(targetPath('threads'), exe);
    worker = functionRange(exe, 'worker');
    main = functionRange(exe, 'main');
    const log = join(dir, 'stdout.log');
    const fd = openSync(log, 'w');
    const child = spawn('wine', [exe, '3', '64', '0'], {
      env: wineEnv(),
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    closeSync(fd);
    try {
      const text = await pollUntil(
        () => {
          const t = readFileSync(log, 'utf8');
          return /^READY\r?$/m.test(t) ? t : undefined;
        },
        30_000,
        'READY from walkme.exe',
      );
      // Sample lines: "PID 32 (0x20)", "thread 244"
      const pid = Number(/^PID (\d+)/m.exec(text)?.[1]);
      workers = [...text.matchAll(/^thread (\d+)\r?$/gm)].map((m) => Number(m[1]));
      dumpPath = (await dumpWithMdw(pid, 'walkme-full.dmp')).path;
    } finally {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    await pollUntil(
      () => (child.exitCode !== null || child.signalCode !== null ? true : undefined),
      10_000,
      'walkme.exe to exit',
    );
    rmSync(exe);
  });

  after(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('finds every image in the dump and walks every thread into the program', async () => {
    expect(worker[0] > 0n, 'nm found worker').to.be.true;
    const inside = (address: string, [start, end]: [bigint, bigint]) =>
      BigInt(address) > start && BigInt(address) < end;
    const inspected = inspectJson(
      await processSupplied(dumpPath, { threads: 'all' }, { winePrefix: '/nonexistent' }),
    );
    if (!inspected.ok) throw new Error(inspected.error.message);
    expect(inspected.kind).to.equal('full');
    expect(inspected.images?.['walkme.exe']).to.equal('dump');
    for (const [name, origin] of Object.entries(inspected.images ?? {})) {
      expect(origin, name).to.equal('dump');
    }
    for (const id of workers) {
      const stack = inspected.threads.find((t) => t.id === id)?.stack;
      expect(stack, `thread ${id} walked`).to.not.equal(undefined);
      const ours = stack?.frames.filter((f) => f.module === 'walkme.exe') ?? [];
      // The worker is the thread's start routine: one frame in the program, inside `worker`.
      expect(ours, `thread ${id}`).to.have.length(1);
      expect(inside(ours[0]!.address, worker), `${ours[0]?.address} inside worker`).to.be.true;
      expect(ours[0]!.trust).to.equal('cfi');
      expect(stack?.frames.map((f) => f.label)).to.include.members([
        'kernel32!BaseThreadInitThunk+0x9',
      ]);
      expect(stack?.frames.some((f) => f.function === 'WaitForSingleObject')).to.be.true;
    }
    const first = inspected.threads.find((t) => !workers.includes(t.id))?.stack;
    const inMain = first?.frames.find((f) => inside(f.address, main));
    expect(inMain, 'main thread reaches main').to.not.equal(undefined);
    expect(first?.frames.some((f) => f.function === 'Sleep')).to.be.true;
    // Walking every thread of a 32 MB full dump reads only a small part of it.
    expect(inspected.bytesRead).to.be.lessThan(2 * 1024 * 1024);
  });
});
