// Root hook: after the whole run, no winedbg and no test program started by THIS run may be left.
// Wine double-forks its processes, so they are not our descendants; instead every process this
// run starts inherits a run tag in its environment (set here, at load time, before any test
// spawns), and only tagged processes are counted — or killed. Processes of other runs sharing the
// Wine prefix are never touched.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

const TAG = 'CDB_HARNESS_TEST_RUN';
const runId = randomUUID();
process.env[TAG] = runId;

// /proc/<pid>/cmdline of Wine processes, e.g. `Z:\work\main\build\targets\idle.exe 100 0`,
// `/work/main/build/targets/raise.exe -w 1500 …`, `C:\windows\system32\winedbg.exe 1412`,
// `start.exe /exec winedbg.exe /work/main/build/targets/idle.exe 100`.
const WATCHED_RE = /build[\\/]targets[\\/]|winedbg/i;

interface Leftover {
  pid: number;
  cmdline: string;
}

function leftovers(): Leftover[] {
  if (process.platform !== 'linux') return [];
  const found: Leftover[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (/\) [ZX] /.test(stat)) continue; // zombies are gone (PID 1 may never reap them here)
      const environ = readFileSync(`/proc/${name}/environ`, 'latin1');
      if (!environ.split('\0').includes(`${TAG}=${runId}`)) continue;
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'latin1').replace(/\0/g, ' ').trim();
      if (WATCHED_RE.test(cmdline)) found.push({ pid: Number(name), cmdline });
    } catch {
      // exited meanwhile, or not ours to read
    }
  }
  return found;
}

after(async function () {
  this.timeout(15_000);
  // Detached sessions and killed targets need a moment to finish exiting.
  const deadline = performance.now() + 5000;
  let left = leftovers();
  while (left.length > 0 && performance.now() < deadline) {
    await new Promise((done) => setTimeout(done, 100));
    left = leftovers();
  }
  for (const { pid } of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  expect(left, 'processes left behind by this test run (now killed)').to.deep.equal([]);
});
