// One record line as `query` reads it: the frames of a module are those of all its frames that
// lie in the module, whether read from the plain text of the frames (module-frames.ts) or by
// parsing them all, and a line whose frames or managed exception do not parse still throws
// (query counts it as a line that is not a record, as before the fast path).
import { expect } from 'chai';
import { normalizeModuleName } from '../../../src/report/analyze/skip-modules.js';
import { readRecordLine } from '../../../src/workflows/query/record-line.js';

function line(record: Record<string, unknown>) {
  return readRecordLine(JSON.stringify({ file: '/d/a.dmp', sha256: 'ab', ...record }))!;
}

function inModule(text: string, module: string) {
  const read = readRecordLine(text)!;
  const all = readRecordLine(text)!
    .frames()
    .filter((f) => f.module !== undefined && normalizeModuleName(f.module) === module);
  expect(read.moduleFrames(module), text).to.deep.equal(all);
  return read.moduleFrames(module);
}

describe('readRecordLine: the frames of one module', () => {
  const frames = [
    { module: 'app', function: 'uses_ntdll', offset: '0x1' },
    { module: 'ntdll', function: 'RtlFrame0', offset: '0x0' },
    { module: 'C:\\Windows\\System32\\NTDLL.DLL', function: 'Ldr\u0041"' },
  ];

  it('gives the frames that lie in the module, however their text is written', () => {
    const text = JSON.stringify({ file: 'ntdll.dmp', frames, clrException: null });
    expect(inModule(text, 'ntdll')).to.deep.equal([frames[1], frames[2]]);
    expect(inModule(JSON.stringify({ frames: frames.slice(0, 2) }), 'ntdll')).to.deep.equal([
      frames[1],
    ]);
    // A module named only in a string elsewhere in the line is no frame's module.
    expect(inModule(JSON.stringify({ frames: [frames[0]], note: 'ntdll' }), 'ntdll')).to.deep.equal(
      [],
    );
    // A managed exception's frames come after the thread's, and lie in no module.
    const clr = { exceptions: [{ stack: [{ function: 'ntdll.Managed()' }] }] };
    expect(inModule(JSON.stringify({ frames, clrException: clr }), 'ntdll')).to.have.length(2);
  });

  it('throws as the parse of all frames throws', () => {
    expect(() =>
      line({ frames: [{ module: 'ntdll' }], clrException: 5 }).moduleFrames('ntdll'),
    ).to.throw(TypeError);
    expect(() =>
      line({ frames: [{ module: 'ntdll' }], clrException: {} }).moduleFrames('ntdll'),
    ).to.throw(TypeError);
    const torn = '{"file":"a","frames":[{"module":"ntdll",}]}';
    expect(() => readRecordLine(torn)!.moduleFrames('ntdll')).to.throw(SyntaxError);
    const notName = '{"file":"a","frames":[{"module":1}]}';
    expect(() => readRecordLine(notName)!.moduleFrames('ntdll')).to.throw(TypeError);
  });
});
