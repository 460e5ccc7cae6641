// The CPU trigger's arithmetic and hold rule (ProcDump -c/-cl, -u, -s), and how the CPU time of a
// Wine-hosted Windows process is read from /proc. The /proc text is this machine's own, read live.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import {
  parseProcStatCpuMs,
  wineHostCandidates,
  wineImageName,
} from '../../../src/platform/wine/process-cpu.js';
import type { CpuSample, CpuSource } from '../../../src/engine/dialects/types.js';
import {
  cpuMet,
  cpuPercent,
  waitForCpu,
  type CpuReading,
} from '../../../src/workflows/dump/cpu-trigger.js';
import { isHarnessError } from '../../../src/errors.js';

/** A source replaying CPU times: each read advances the clock 1 s and the CPU by `burn[i]` ms. */
function replay(burn: readonly number[], cores = 2): CpuSource & { reads: number } {
  let i = 0;
  let cpuMs = 0;
  const source = {
    describe: 'replay',
    cores,
    reads: 0,
    read(): Promise<CpuSample | null> {
      source.reads++;
      if (i > burn.length) return Promise.resolve(null);
      const at = i * 1000;
      cpuMs += i === 0 ? 0 : (burn[i - 1] ?? 0);
      i++;
      return Promise.resolve({ cpuMs, atMs: at });
    },
  };
  return source;
}

describe('CPU trigger', () => {
  it('measures usage over the interval, of all cores or of one (-u)', () => {
    const a = { cpuMs: 1000, atMs: 0 };
    const b = { cpuMs: 1500, atMs: 1000 };
    expect(cpuPercent(a, b, 2, true)).to.equal(50);
    expect(cpuPercent(a, b, 2, false)).to.equal(25);
    expect(cpuPercent(a, a, 2, true)).to.equal(0); // no time passed: no usage, no division by 0
    const above = { direction: 'above' as const, percent: 50, perCore: true, holdMs: 0 };
    expect([cpuMet(above, 50), cpuMet(above, 49.9)]).to.deep.equal([true, false]);
    const below = { ...above, direction: 'below' as const };
    expect([cpuMet(below, 50), cpuMet(below, 49.9)]).to.deep.equal([false, true]);
  });

  it('fires only once the condition has held for -s, restarting the count when it breaks', async () => {
    // ms of CPU per 1 s interval: above 50 % of one core for 2 s, a dip, then 4 s above; the
    // hold counts from the end of the first interval above, so 3 s are complete at the 7th.
    const source = replay([800, 900, 100, 700, 800, 900, 900, 50]);
    const readings: CpuReading[] = [];
    const firing = await waitForCpu(
      source,
      { direction: 'above', percent: 50, perCore: true, holdMs: 3000 },
      { pollMs: 1, onReading: (r) => readings.push(r) },
    );
    expect(readings.map((r) => r.met)).to.deep.equal([true, true, false, true, true, true, true]);
    expect(firing).to.deep.include({ trigger: 'cpu-above', threshold: 50, heldFor: 3, value: 90 });
    expect(firing?.reason).to.match(/^CPU 90\.0% >= 50% of one core for 3\.0 s \(-c 50 -u -s 3\)$/);
  });

  it('-cl fires when usage stays below; a process that goes away ends the wait with null', async () => {
    const below = await waitForCpu(
      replay([900, 10, 10, 10]),
      { direction: 'below', percent: 5, perCore: false, holdMs: 2000 },
      { pollMs: 1 },
    );
    expect(below).to.deep.include({ trigger: 'cpu-below', heldFor: 2 });
    const gone = await waitForCpu(
      replay([900, 900]),
      { direction: 'above', percent: 10, perCore: false, holdMs: 60_000 },
      { pollMs: 1 },
    );
    expect(gone).to.equal(null);
  });

  it('stops at once on Ctrl-C (an aborted signal)', async () => {
    const controller = new AbortController();
    controller.abort();
    try {
      await waitForCpu(
        replay([0, 0, 0]),
        { direction: 'above', percent: 10, perCore: false, holdMs: 1000 },
        { pollMs: 1, signal: controller.signal },
      );
      expect.fail('the wait went on after the abort');
    } catch (error) {
      expect(isHarnessError(error) && error.code).to.equal('ABORTED');
    }
  });

  it('reads utime + stime from /proc/<pid>/stat, whatever the process name holds', () => {
    const own = readFileSync('/proc/self/stat', 'utf8');
    const ms = parseProcStatCpuMs(own);
    expect(ms).to.be.a('number').and.to.be.at.least(0);
    // A name with spaces and a parenthesis does not shift the fields.
    const odd = own.replace(/\(.*\)/, '(a b) c)');
    expect(parseProcStatCpuMs(odd)).to.equal(ms);
    expect(parseProcStatCpuMs('garbage')).to.equal(null);
  });

  it("takes a Wine process's image from argv[0], Windows or Unix path", () => {
    // /proc/<pid>/cmdline of Wine processes on this rig: started by `wine PATH`, and by Windows.
    expect(wineImageName('build/targets/idle.exe\u0000500\u000020\u0000\u0000')).to.equal(
      'idle.exe',
    );
    expect(wineImageName('C:\\windows\\system32\\services.exe\u0000')).to.equal('services.exe');
    expect(wineImageName('/usr/bin/node\u0000x.js')).to.equal(null);
  });

  it('finds no Wine host for an image no Wine process runs', async () => {
    expect(await wineHostCandidates('no-such-image-cdbh.exe')).to.deep.equal([]);
  });
});
