// dump on the cdb path, against the cdb emulator: noninvasive attach (-pv), `.dump /o /ma "PATH"`,
// the ADPlus access-denied failure, the already-debugged attach error, and `qd` at the end. The
// emulator's `.dump` file is a synthetic minidump (test/emulator/dump-file.ts) holding the pid it
// was attached to, so the read-back verification runs for real on the cdb path.
import { expect } from 'chai';
import { existsSync, readdirSync } from 'node:fs';
import { inspectDump } from '../../src/report/inspect/index.js';
import { dumpProcess, type DumpResult } from '../../src/workflows/dump/dump.js';
import { emulatedCdb } from '../watch/emulator.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const PID = 5868;

async function dumpEmulated(scenario: string, kind?: 'full' | 'mini') {
  const cdb = emulatedCdb(scenario);
  const outDir = makeTempDir('dump-cdb');
  let error: (Error & { reason?: string }) | null = null;
  let result: DumpResult | null = null;
  try {
    result = await dumpProcess({
      engine: 'cdb',
      target: { name: 'w3wp' },
      ...(kind === undefined ? {} : { kind }),
      outDir,
      debuggerCommandPrefix: cdb.prefix,
      list: () => Promise.resolve([{ pid: PID, name: 'w3wp.exe' }]),
      now: new Date(2025, 10, 21, 12, 48, 59),
    });
  } catch (e) {
    error = e as Error & { reason?: string };
  }
  return { error, result, state: cdb.state(), outDir, files: readdirSync(outDir) };
}

describe('dump on the cdb path (emulator)', function () {
  this.timeout(60_000);

  it('attaches noninvasively, writes with .dump /o /ma, detaches with qd, and verifies the full dump', async () => {
    const { error, result, state, files } = await dumpEmulated('dump-write.json');
    expect(state.argv).to.include.members(['-p', String(PID), '-pd', '-pv']);
    expect(state.commands).to.include('!address -summary');
    const path = state.dumps[0] ?? '';
    expect(path).to.match(/w3wp\.exe_5868_251121_124859\.dmp$/);
    expect(state.commands).to.include(`.dump /o /ma "${path}"`);
    expect(state.ended).to.equal('qd');
    expect(state.targetAlive).to.equal(true);
    // Read back: the pid cdb was attached to, and full memory for /ma.
    expect(error).to.equal(null);
    expect(result).to.include({
      path,
      kind: 'full',
      requestedKind: 'full',
      actualKind: 'full',
      pid: PID,
      verified: true,
      detached: true,
    });
    expect(result?.problems).to.deep.equal([]);
    expect(files).to.deep.equal(['w3wp.exe_5868_251121_124859.dmp']);
    const info = await inspectDump(path);
    if (!info.ok) throw new Error(info.error.message);
    expect(info.process.pid).to.equal(PID);
    expect(info.kind).to.equal('full');
    // A noninvasive attach stops at no exception event: no exception stream.
    expect(info.exception).to.equal(null);
  });

  it('writes a mini dump with .dump /o /m when asked, and verifies it as mini', async () => {
    const { error, result, state } = await dumpEmulated('dump-write.json', 'mini');
    const path = state.dumps[0] ?? '';
    expect(state.commands).to.include(`.dump /o /m "${path}"`);
    expect(error).to.equal(null);
    expect(result).to.include({
      kind: 'mini',
      requestedKind: 'mini',
      actualKind: 'mini',
      pid: PID,
      verified: true,
    });
  });

  it('turns the real .dump access-denied failure into advice and leaves no dump behind', async () => {
    const { error, state, files } = await dumpEmulated('dump-access-denied.json');
    expect(error?.reason).to.equal('dump-access-denied');
    expect(error?.message).to.contain('Run elevated').and.to.contain('nothing was kept');
    expect(files).to.deep.equal([]);
    expect(state.ended).to.equal('qd');
    expect(state.targetAlive).to.equal(true);
  });

  it('explains an attach refused because the process is already being debugged', async () => {
    const { error, files, outDir } = await dumpEmulated('attach-already-debugged.json');
    expect(error?.reason).to.equal('already-debugged');
    expect(error?.message).to.contain('Detach that debugger first');
    expect(files).to.deep.equal([]);
    expect(existsSync(outDir)).to.equal(true);
  });
});
