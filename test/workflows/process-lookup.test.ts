import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { isHarnessError } from '../../src/errors.js';
import {
  findProcesses,
  parseTasklistCsv,
  parseWinedbgInfoProcess,
  resolveProcess,
  type ProcessInfo,
} from '../../src/workflows/process-lookup.js';

// Captured on this rig: `winedbg --command "info process"` while another session debugged thrower.exe.
const WINEDBG = readFileSync(
  new URL('../watch/fixtures/winedbg-info-process.txt', import.meta.url),
  'utf8',
);

// `tasklist /fo csv /nh` rows in the shape published by several projects' fixtures.
const TASKLIST = [
  '"System Idle Process","0","Services","0","8 K"',
  '"w3wp.exe","5144","Console","3","938,060 K"',
  '"W3WP.EXE","6120","Console","3","1,024 K"',
  '"notepad.exe","1234","Console","1","15,432 K"',
  'INFO: No tasks are running which match the specified criteria.',
].join('\r\n');

const listOf = (rows: ProcessInfo[]) => ({
  engine: 'cdb' as const,
  list: () => Promise.resolve(rows),
});

async function targetError(
  promise: Promise<unknown>,
): Promise<{ reason: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isHarnessError(error) && error.code === 'TARGET') {
      return {
        reason: (error as unknown as { reason: string }).reason,
        message: error.shortMessage,
      };
    }
    throw error;
  }
  throw new Error('expected a TargetError');
}

describe('process lookup', () => {
  it('reads winedbg info process: hex pids to decimal, the tree to parent pids, the = row marked', () => {
    const rows = parseWinedbgInfoProcess(WINEDBG);
    expect(rows.find((r) => r.name === 'thrower.exe')).to.deep.include({
      pid: 0x2b0,
      parentPid: 0x2a8,
      threads: 1,
    });
    expect(rows.find((r) => r.name === 'explorer.exe')?.parentPid).to.equal(0x2c0);
    expect(rows.find((r) => r.name === 'services.exe')?.parentPid).to.equal(undefined);
    expect(rows.find((r) => r.name === 'rpcss.exe')?.parentPid).to.equal(0x38);
    expect(rows.filter((r) => r.current).map((r) => r.pid)).to.deep.equal([0x2d0]);
    expect(rows).to.have.length(16);
  });

  it('reads tasklist CSV with commas inside quoted fields and skips notices', () => {
    const rows = parseTasklistCsv(TASKLIST);
    expect(rows.map((r) => r.pid)).to.deep.equal([0, 5144, 6120, 1234]);
    expect(rows[1]).to.deep.equal({ pid: 5144, name: 'w3wp.exe', memKb: 938060 });
  });

  it('finds processes by name with or without .exe, in any case', async () => {
    const found = await findProcesses('w3wp', listOf(parseTasklistCsv(TASKLIST)));
    expect(found.map((p) => p.pid)).to.deep.equal([5144, 6120]);
  });

  it('resolves one process, and lists every candidate when the name is ambiguous', async () => {
    const rows = parseTasklistCsv(TASKLIST);
    expect(await resolveProcess({ name: 'notepad' }, listOf(rows))).to.deep.include({ pid: 1234 });
    expect(await resolveProcess({ pid: 5144 }, listOf(rows))).to.deep.include({ name: 'w3wp.exe' });
    const ambiguous = await targetError(resolveProcess({ name: 'w3wp.exe' }, listOf(rows)));
    expect(ambiguous.reason).to.equal('ambiguous');
    expect(ambiguous.message)
      .to.contain('w3wp.exe (pid 5144)')
      .and.to.contain('W3WP.EXE (pid 6120)')
      .and.to.contain('--pid');
    expect((await targetError(resolveProcess({ name: 'nope' }, listOf(rows)))).reason).to.equal(
      'not-found',
    );
    expect((await targetError(resolveProcess({ pid: 4 }, listOf(rows)))).reason).to.equal(
      'not-found',
    );
  });
});
