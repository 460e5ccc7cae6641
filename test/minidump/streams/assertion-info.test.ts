// Breakpad's AssertionInfo stream (0x47670002: expression, function, file as 128 UTF-16 units
// each, line, type), decoded from dumps built byte by byte, and carried into the analyze record
// and the report's notes. The peer corpus (Breakpad's own test dumps) holds no dump with this
// stream, so every expectation here is the value the builder was told to write.
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMinidump } from '../../../src/minidump/index.js';
import { assertValid } from '../../../src/report/schemas.js';
import { analyzeDumps } from '../../../src/workflows/analyze/analyze.js';
import { assertionText } from '../../../src/report/analyze/report-data.js';
import type { AnalyzeDumpRecord } from '../../../src/report/analyze/analyze-record.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { DumpBuilder, struct } from '../helpers/dump-builder.js';

function assertionStream(fields: {
  expression: string;
  function: string;
  file: string;
  line: number;
  type: number;
}): Buffer {
  return struct(3 * 256 + 8, (s) => {
    s.write(fields.expression, 0, 'utf16le');
    s.write(fields.function, 256, 'utf16le');
    s.write(fields.file, 512, 'utf16le');
    s.writeUInt32LE(fields.line, 768);
    s.writeUInt32LE(fields.type, 772);
  });
}

const INVALID_PARAMETER = {
  expression: 'dst != nullptr',
  function: 'memcpy_s',
  file: 'minkernel\\crts\\ucrt\\src\\appcrt\\string\\memcpy_s.cpp',
  line: 48,
  type: 1,
};

describe('AssertionInfo stream (Breakpad 0x47670002)', function () {
  this.timeout(60_000);

  it('decodes expression, function, file, line and type, and says when the stream is short', async () => {
    const dir = makeTempDir('assertion');
    const path = join(dir, 'a.dmp');
    writeFileSync(
      path,
      new DumpBuilder(1).stream(0x47670002, assertionStream(INVALID_PARAMETER)).build(),
    );
    const dump = await openMinidump(path);
    try {
      expect(await dump.assertionInfo()).to.deep.equal({
        ...INVALID_PARAMETER,
        typeName: 'invalid parameter',
      });
    } finally {
      await dump.close();
    }
    const short = join(dir, 'short.dmp');
    writeFileSync(short, new DumpBuilder(1).stream(0x47670002, Buffer.alloc(100)).build());
    const cut = await openMinidump(short);
    try {
      expect(await cut.assertionInfo()).to.equal(null);
      expect(cut.warnings().join('\n')).to.match(
        /AssertionInfo: 100-byte stream is shorter than its 776-byte record/,
      );
    } finally {
      await cut.close();
    }
  });

  it('puts it into the analyze record (schema-checked) and the report', async () => {
    const dir = makeTempDir('assertion-analyze');
    const input = join(dir, 'in');
    const out = join(dir, 'out');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(input);
    const pure = { expression: '', function: '', file: '', line: 0, type: 2 };
    writeFileSync(
      join(input, 'purecall.dmp'),
      new DumpBuilder(1).stream(0x47670002, assertionStream(pure)).build(),
    );
    await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin', validateRecords: true });
    const record = JSON.parse(
      readFileSync(join(out, 'records.ndjson'), 'utf8').split('\n')[0] ?? '',
    ) as AnalyzeDumpRecord;
    assertValid('analyzeRecord', record);
    expect(record.assertion).to.deep.equal({ ...pure, typeName: 'pure virtual call' });
    expect(readFileSync(join(out, 'report.html'), 'utf8')).to.include(
      'assertion (pure virtual call)',
    );
    expect(assertionText({ ...INVALID_PARAMETER, typeName: 'invalid parameter' })).to.equal(
      'assertion (invalid parameter): dst != nullptr in memcpy_s at minkernel\\crts\\ucrt\\src\\appcrt\\string\\memcpy_s.cpp:48',
    );
  });
});
