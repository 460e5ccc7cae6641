// Handle type names that are Object.prototype's keys (issue 30, item 12): `constructor`,
// `toString` and `__proto__` once made `inspect --json` fail the dump as INTERNAL
// (`byType[type] = …` on a `{}`). Counted as any other name now, and written as such.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectDump } from '../../../src/report/inspect/inspect-json.js';
import { ExceptionLog } from '../../../src/workflows/watch/exception-log.js';
import type { WatchExceptionLine } from '../../../src/workflows/watch/watch-records.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { DumpBuilder, struct } from '../helpers/dump-builder.js';

const HANDLE_DATA = 12;
const NAMES = ['constructor', 'toString', '__proto__', 'toString', 'hasOwnProperty'];

function handleDump(): Buffer {
  const b = new DumpBuilder(1);
  const rvas = NAMES.map((name) => b.string(name));
  b.stream(
    HANDLE_DATA,
    Buffer.concat([
      struct(16, (h) => (h.writeUInt32LE(16, 0), h.writeUInt32LE(32, 4), h.writeUInt32LE(5, 8))),
      ...rvas.map((rva, i) =>
        struct(32, (d) => (d.writeBigUInt64LE(BigInt(4 * (i + 1)), 0), d.writeUInt32LE(rva, 8))),
      ),
    ]),
  );
  return b.build();
}

describe('handle type names that are Object.prototype keys', () => {
  it('are counted like any name, and written to JSON as such', async () => {
    const file = join(makeTempDir('proto-handles'), 'handles.dmp');
    writeFileSync(file, handleDump());
    const dump = await inspectDump(file);
    expect(dump.ok, JSON.stringify(dump)).to.equal(true);
    if (!dump.ok) return;
    expect(dump.handles?.count).to.equal(5);
    expect(Object.entries(dump.handles?.byType ?? {}).sort()).to.deep.equal([
      ['__proto__', 1],
      ['constructor', 1],
      ['hasOwnProperty', 1],
      ['toString', 2],
    ]);
    expect(JSON.stringify(dump.handles)).to.equal(
      '{"count":5,"byType":{"constructor":1,"toString":2,"__proto__":1,"hasOwnProperty":1}}',
    );
  });

  it('watch: a signature named __proto__ or constructor counts like any other', () => {
    const log = new ExceptionLog(join(makeTempDir('proto-log'), 'exceptions.ndjson'));
    try {
      for (const signature of ['constructor', '__proto__', '__proto__']) {
        log.append({ signature, suspendedMs: 1, action: 'skipped' } as WatchExceptionLine);
      }
      expect(Object.entries(log.bySignature).sort()).to.deep.equal([
        ['__proto__', 2],
        ['constructor', 1],
      ]);
    } finally {
      log.close();
    }
  });
});
