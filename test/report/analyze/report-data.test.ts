// A dump's row in report.html's data (src/report/analyze/report-data.ts): its frames as the
// page lists them, an inlined call marked as cdb's `k` marks it, `(Inline Function)`.
import { expect } from 'chai';
import type { AnalyzeDumpRecord } from '../../../src/report/analyze/analyze-record.js';
import { dumpRow, ROW, StringTable } from '../../../src/report/analyze/report-data.js';
import { emptyRecord } from '../../../src/workflows/analyze/analyze-one.js';

describe('report data rows (src/report/analyze/report-data.ts)', () => {
  it('marks inline frames (Inline Function) and leaves the others as they were', () => {
    const record: AnalyzeDumpRecord = {
      ...emptyRecord('/dumps/inlined.dmp', { size: 1, sha256: '0'.repeat(64) }, 'builtin'),
      ok: true,
      frames: [
        { module: 'inlined', function: 'crash_store', offset: '0x0', trust: 'exception' },
        {
          module: 'inlined',
          function: 'inner_step',
          offset: '0x8',
          source: 'inlined.c @ 20',
          trust: 'cfi',
          inline: true,
        },
        { module: 'inlined', function: 'run_chain', offset: '0x1c', trust: 'cfi' },
      ],
    };
    const strings = new StringTable();
    const frames = (dumpRow(record, strings, new Map())[ROW.frames] as number[]).map(
      (id) => strings.strings[id],
    );
    expect(frames).to.deep.equal([
      'inlined!crash_store+0x0  [exception]',
      '(Inline Function) inlined!inner_step+0x8 [inlined.c @ 20]  [cfi]',
      'inlined!run_chain+0x1c  [cfi]',
    ]);
  });
});
