// One record line as `query` reads it: the frames of a module are those of all its frames that
// lie in the module, whether read from the plain text of the frames (module-frames.ts) or by
// parsing them all, and a line whose frames or managed exception do not parse still throws
// (query counts it as a line that is not a record, as before the fast path).
import { expect } from 'chai';
import { normalizeModuleName } from '../../../src/report/analyze/skip-modules.js';
import { walkMembers } from '../../../src/workflows/query/json-members.js';
import { readRecordLine } from '../../../src/workflows/query/record-line.js';

const MEMBERS = ['file', 'sha256', 'bucket', 'exception', 'frames', 'modules', 'clrException'];

/** A JSON text as a value of one type, as readRecordLine reads its members. */
function typed(json: string | undefined, type: 'string' | 'object'): unknown {
  if (json === undefined) return undefined;
  const value = JSON.parse(json) as unknown;
  if (typeof value !== type || (type === 'string' && !json.startsWith('"'))) {
    throw new TypeError('not of its type');
  }
  return value;
}

/**
 * What a line gave before members were read by a pattern (every member by the walk, the frames
 * by JSON.parse of them all): its record and its ntdll frames, 'throws', or 'not a record'.
 */
function before(text: string): unknown {
  const members = walkMembers(text, 0, text.length, MEMBERS);
  const frames = members?.get('frames');
  if (members === undefined || frames?.startsWith('[') !== true) return 'not a record';
  try {
    const record: Record<string, unknown> = {
      file: typed(members.get('file'), 'string') ?? '',
      sha256: typed(members.get('sha256'), 'string') ?? '',
      bucket: typed(members.get('bucket'), 'object') ?? null,
    };
    const exception = members.get('exception');
    if (exception !== undefined && exception !== 'null') {
      const code = walkMembers(exception, 0, exception.length, ['code'])?.get('code');
      if (code === undefined) throw new TypeError('exception without a code');
      record.exception = { code: typed(code, 'string') };
    }
    const clr = typed(members.get('clrException'), 'object') as
      { exceptions: { stack: { function: string }[] }[] } | null | undefined;
    const managed = clr?.exceptions.flatMap((e) => e.stack.map((f) => ({ function: f.function })));
    const all: { module?: string; function?: string }[] = [
      ...(JSON.parse(frames) as { module?: string }[]),
      ...(managed ?? []),
    ];
    const ntdll = all.filter(
      (f) => f.module !== undefined && normalizeModuleName(f.module) === 'ntdll',
    );
    return { record, ntdll };
  } catch {
    return 'throws';
  }
}

/** The same from readRecordLine. */
function now(text: string): unknown {
  try {
    const line = readRecordLine(text);
    if (line === undefined) return 'not a record';
    return { record: line.record, ntdll: line.moduleFrames('ntdll') };
  } catch {
    return 'throws';
  }
}

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

  it('reads every line made from a record by one edit as it was read before', () => {
    const text = JSON.stringify({
      file: 'C:\\dumps\\a "b".dmp',
      sha256: 'ab',
      exception: { code: '0xc0000005', name: 'x', registers: { rip: '0x1', rsp: '0x2' } },
      frames: [
        { module: 'ntdll', function: 'RtlFrame0', offset: '0x0', inline: true },
        { module: 'app', function: 'ntdll_call', address: '0x7ff6' },
      ],
      modules: { list: [{ name: 'ntdll.dll' }] },
      bucket: { id: '0123', signature: 'app!f' },
    });
    expect(now(text)).to.deep.equal(before(text));
    expect(now(text)).to.deep.include({
      ntdll: [{ module: 'ntdll', function: 'RtlFrame0', offset: '0x0', inline: true }],
    });
    // Lines no one edit makes: each the way a shape could be misread.
    for (const [exception, framesJson] of [
      ['{"code":"0x1","code":"0x2"}', '[]'],
      ['{"name":"x","code":"0x1"}', '[]'],
      ['{"code":"0xc\\u0030000005"}', '[]'],
      ['{"code":5}', '[]'],
      ['{"name":"no code"}', '[]'],
      ['{"code":"0x1","x":{"code":"0x2"}}', '[]'],
      ['null', '[{"module":"\\u006etdll"}]'],
      ['null', '[{"module":"C:\\\\ntdll.dll"}]'],
      ['null', '[{"module":"ntdll"}],"frames":[{"module":"ntdll","function":"\\"}]'],
      ['null', '[{"function":"f"}],"frames":[{"module":"ntdll"}]'],
    ]) {
      const edited = `{"file":"a","exception":${exception},"frames":${framesJson}}`;
      expect(now(edited), edited).to.deep.equal(before(edited));
    }
    const outcomes = new Set<string>();
    for (let at = 0; at <= text.length; at++) {
      for (const edit of ['"', '\\', '{', '}', ']', ',', ':', ' ', '1', 'n', '']) {
        const edited = text.slice(0, at) + edit + text.slice(edit === '' ? at + 1 : at);
        const outcome = before(edited);
        expect(now(edited), edited).to.deep.equal(outcome);
        outcomes.add(typeof outcome === 'string' ? outcome : 'record');
      }
    }
    expect([...outcomes].sort()).to.deep.equal(['not a record', 'record', 'throws']);
  });
});
