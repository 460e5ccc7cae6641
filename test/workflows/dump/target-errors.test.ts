import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TargetError } from '../../../src/errors.js';
import {
  explainTargetFailure,
  translateStartError,
} from '../../../src/workflows/dump/target-errors.js';
import { TRANSCRIPTS_DIR } from '../../helpers/transcripts-dir.js';

const body = (file: string) =>
  readFileSync(join(TRANSCRIPTS_DIR, file), 'utf8').split('# ---\n')[1] ?? '';

describe('target failures users hit', () => {
  // The cdb attach-failure lines below are the ones SkyLined/mBugId matches
  // (cCdbWrapper_fAttachCdbToProcessForId.py, https://github.com/SkyLined/mBugId); the winedbg one
  // is what `winedbg 99999` prints (test/dump/dump-winedbg.test.ts meets it under Wine).
  const cases: [string, string, RegExp][] = [
    ['Cannot debug pid 1234, Win32 error 0n5', 'access-denied', /elevated/],
    ['Cannot debug pid 1234, NTSTATUS 0xC0000048', 'already-debugged', /noninvasive/],
    [
      'Unable to initialize target, NTSTATUS 0xC0000048',
      'already-debugged',
      /already being debugged/,
    ],
    ['Cannot debug pid 1234, NTSTATUS 0xC00000BB', 'bitness', /x64 cdb/],
    ['Cannot debug pid 1234, NTSTATUS 0xC000010A', 'exiting', /exiting/],
    ['Cannot debug pid 1234, Win32 error 0n87', 'not-found', /does not exist/],
    ["Can't attach process 1869f: error 87", 'not-found', /does not exist/],
  ];
  for (const [line, reason, advice] of cases) {
    it(`explains "${line}" as ${reason}`, () => {
      const error = explainTargetFailure(`banner\n${line}\n`, 1234);
      expect(error).to.be.instanceOf(TargetError);
      expect(error?.reason).to.equal(reason);
      expect(error?.shortMessage).to.match(advice);
      expect(error?.lastOutput).to.deep.equal([line]);
    });
  }

  it('recognises the real .dump access-denied failure (ADPlus transcript)', () => {
    const error = explainTargetFailure(
      body('dump-sos-sx/dump-mA-failure-access-denied-adplus.txt'),
      5868,
    );
    expect(error?.reason).to.equal('dump-access-denied');
    expect(error?.shortMessage).to.contain('Run elevated');
  });

  it('rephrases an engine start failure and keeps unknown errors as they are', () => {
    const engineError = new TargetError(
      'attach-failed',
      'cdb cannot debug pid 77: NTSTATUS 0xC0000048',
      {
        lastOutput: ['Cannot debug pid 77, NTSTATUS 0xC0000048'],
      },
    );
    const translated = translateStartError(engineError, 77) as TargetError;
    expect(translated.reason).to.equal('already-debugged');
    expect(translated.shortMessage).to.contain('process 77');
    const other = new Error('boom');
    expect(translateStartError(other)).to.equal(other);
  });
});
