// src/workflows/analyze/unreadable-dump.ts: which errors make a dump "unreadable" (its own failed
// record, not the batch's), and the record written for one.
import { expect } from 'chai';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { validate } from '../../../src/report/schemas.js';
import { UsageError } from '../../../src/errors.js';
import { ioFailure, isNodeFsError } from '../../../src/workflows/analyze/unreadable-dump.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

describe('unreadable dumps (src/workflows/analyze/unreadable-dump.ts)', () => {
  it('takes a real fs error for one, and not a plain or harness error', async () => {
    const dir = makeTempDir('unreadable');
    const missing = await stat(join(dir, 'gone.dmp')).catch((error: unknown) => error);
    expect(isNodeFsError(missing)).to.equal(true);
    expect(isNodeFsError(new UsageError('bad option'))).to.equal(false);
    expect(isNodeFsError(new TypeError('x'))).to.equal(false);
    expect(isNodeFsError(null)).to.equal(false);
  });

  it('writes a schema-valid IO record whose stand-in hash differs per path', () => {
    const a = ioFailure('/dumps/a.dmp', 'EACCES: permission denied', 'builtin');
    const b = ioFailure(Buffer.from([0x2f, 0x61, 0xff, 0x2e, 0x64]), 'ENOENT', 'builtin');
    expect(validate('analyzeRecord', a).ok).to.equal(true);
    expect(a.ok).to.equal(false);
    expect(a.error).to.deep.equal({ code: 'IO', message: 'EACCES: permission denied' });
    expect(a.sha256).to.match(/^[0-9a-f]{64}$/);
    expect(b.sha256).to.not.equal(a.sha256);
    expect(ioFailure('/dumps/a.dmp', 'other', 'cdb').sha256).to.equal(a.sha256);
  });
});
