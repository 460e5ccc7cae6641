// dump end to end under Wine: winedbg attaches, writes `minidump`, detaches; the file reads back
// with the target's pid, and the target keeps running.
import { expect } from 'chai';
import { statSync } from 'node:fs';
import { validate } from '../../src/report/schemas.js';
import { dumpProcess, type DumpEvent } from '../../src/workflows/dump/dump.js';
import { killAllTargets, startTarget, wineEnv, wineRigReady } from '../helpers/wine.js';
import { makeTempDir } from '../helpers/temp-dir.js';

(wineRigReady() ? describe : describe.skip)('dump under winedbg (end to end)', function () {
  this.timeout(60_000);
  after(killAllTargets);

  it('writes a verified dump of the right pid, owner-only, and the target runs on', async () => {
    const target = await startTarget('leak', ['256', '100', '0']);
    const outDir = makeTempDir('dump');
    const events: DumpEvent[] = [];
    const result = await dumpProcess({
      engine: 'winedbg',
      target: { name: 'leak' },
      outDir,
      env: wineEnv(),
      onEvent: (e) => events.push(e),
    });
    expect(validate('dumpResult', result).errors).to.deep.equal([]);
    expect(result).to.include({
      pid: target.pid,
      verified: true,
      detached: true,
      targetAlive: true,
      kind: 'full',
      requestedKind: 'full',
      actualKind: 'mini',
    });
    expect(result.path).to.match(new RegExp(`/leak\\.exe_${target.pid}_\\d{6}_\\d{6}\\.dmp$`));
    expect(statSync(result.path).mode & 0o777).to.equal(0o600);
    expect(statSync(result.path).size).to.equal(result.bytes);
    expect(result.notes.join('\n')).to.contain('winedbg writes MiniDumpNormal only');
    // winedbg writes a mini dump whatever is asked: no committed-memory "estimate" many times
    // the file's size, but none, with the reason.
    expect(result.estimateBytes).to.equal(null);
    expect(result.estimateSource).to.equal(null);
    expect(result.estimateNote).to.contain('writes a normal (mini) dump whatever is asked');
    expect(result.suspendedMs).to.be.at.least(result.writeMs);
    expect(events.map((e) => e.type)).to.include.members([
      'resolved',
      'estimate',
      'attached',
      'written',
      'detached',
    ]);
    expect(await target.isRunning(2000, /^HEAPSTAT/)).to.equal(true);
  });

  it('never overwrites an existing dump unless asked', async () => {
    const target = await startTarget('idle', ['100']);
    const outDir = makeTempDir('dump');
    const now = new Date(2025, 10, 21, 12, 48, 59);
    const options = {
      engine: 'winedbg' as const,
      target: { pid: target.pid },
      outDir,
      env: wineEnv(),
      now,
      estimate: false,
    };
    const first = await dumpProcess(options);
    let message = '';
    try {
      await dumpProcess(options);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).to.contain('already exists').and.to.contain('--overwrite');
    const again = await dumpProcess({ ...options, overwrite: true });
    expect(again.path).to.equal(first.path);
    expect(again.verified).to.equal(true);
    expect(await target.isRunning(2000)).to.equal(true);
  });

  it('says the process is gone when winedbg cannot attach (error 87)', async () => {
    let reason = '';
    let message = '';
    try {
      await dumpProcess({
        engine: 'winedbg',
        target: { pid: 99999 },
        outDir: makeTempDir('dump'),
        env: wineEnv(),
        estimate: false,
        // The process vanished between the listing and the attach.
        list: () => Promise.resolve([{ pid: 99999, name: 'gone.exe' }]),
      });
    } catch (error) {
      reason = (error as { reason?: string }).reason ?? '';
      message = (error as Error).message;
    }
    expect(reason).to.equal('not-found');
    expect(message).to.contain('does not exist');
  });
});
