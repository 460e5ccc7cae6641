// The frames of one module read without parsing the others (query --module's speed, issue 34):
// the same frames, in the same order, as JSON.parse of the whole array and normalizeModuleName
// give; and no answer at all wherever that parse would fail or would need more than the frames'
// plain text (escapes, numbers, nested values, text that is not ASCII).
import { expect } from 'chai';
import type { AnalyzeFrame } from '../../../src/report/analyze/analyze-record.js';
import { normalizeModuleName } from '../../../src/report/analyze/skip-modules.js';
import { framesInModule } from '../../../src/workflows/query/module-frames.js';

/** What `query` found before: every frame parsed, then those of the module kept. */
function parsed(json: string, module: string): AnalyzeFrame[] | 'throws' {
  try {
    return (JSON.parse(json) as AnalyzeFrame[]).filter(
      (f) => f.module !== undefined && normalizeModuleName(f.module) === module,
    );
  } catch {
    return 'throws';
  }
}

/** framesInModule agrees with the parse when it answers; which of the two answered. */
function same(json: string, module: string): 'fast' | 'parse' {
  const fast = framesInModule(json, module);
  const slow = parsed(json, module);
  if (fast === undefined) return 'parse';
  expect(slow, `${module} in ${json}`).to.not.equal('throws');
  expect(fast, `${module} in ${json}`).to.deep.equal(slow);
  return 'fast';
}

const FRAMES: AnalyzeFrame[] = [
  { module: 'NTDLL.DLL', function: 'RtlUserThreadStart', offset: '0x21', trust: 'cfi' },
  { module: 'app', function: 'ntdll_shim::call', offset: '0x10', source: 'ntdll.c @ 3' },
  { function: 'ntdll!lookalike', address: '0x7ff610000' },
  { module: 'C:/Windows/System32/ntdll.dll', function: 'Ldr', inline: true },
  { module: 'ntdll32', function: 'f' },
  { module: 'ntdll', function: 'NtdllDefaultHandler' },
];

describe("framesInModule: one module's frames of a record, the others left unparsed", () => {
  it('finds the frames whose module is the one named, not those that only mention it', () => {
    const json = JSON.stringify(FRAMES);
    const hits = framesInModule(json, 'ntdll')!;
    expect(hits).to.deep.equal([FRAMES[0], FRAMES[3], FRAMES[5]]);
    expect(same(json, 'ntdll')).to.equal('fast');
    expect(framesInModule(json, 'app')).to.deep.equal([FRAMES[1]]);
    expect(framesInModule(json, 'kernel32')).to.deep.equal([]);
    expect(framesInModule('[]', 'ntdll')).to.deep.equal([]);
    // A member given twice: the last one is the frame's module, as JSON.parse reads it.
    expect(framesInModule('[{"module":"ntdll","module":"app"}]', 'ntdll')).to.deep.equal([]);
    expect(framesInModule('[{"module":"app","module":"ntdll"}]', 'ntdll')).to.deep.equal([
      { module: 'ntdll' },
    ]);
  });

  it('leaves to JSON.parse the frames it cannot read as plain text', () => {
    for (const json of [
      '[{"module":"\\u006etdll","function":"f"}]',
      '[{"module":"C:\\\\Windows\\\\ntdll.dll"}]',
      '[{"module":"ntdll","function":"a \\" b"}]',
      '[{"module":"ntdll","offset":16}]',
      '[{"module":null}]',
      '[{"module":"ntdll","function":"{ctor}"}]',
      '[{"module":"ntdll","x":{"y":1}}]',
      '[{"module":"ntdll"},]',
      '[{"module":"ntdll"} ]',
      '[{"module":"ntdll","function":"\u00e4"}]',
      '[{}]',
    ]) {
      expect(framesInModule(json, 'ntdll'), json).to.equal(undefined);
    }
    expect(framesInModule('[]', '')).to.equal(undefined);
  });

  it('answers as the parse does on every frames array made by one edit', () => {
    const json = JSON.stringify(FRAMES);
    const answered = { fast: 0, parse: 0 };
    for (let at = 0; at <= json.length; at++) {
      for (const insert of ['"', '\\', '{', '}', ',', ':', 'N', '1']) {
        for (const module of ['ntdll', 'app']) {
          answered[same(json.slice(0, at) + insert + json.slice(at), module)]++;
        }
      }
      answered[same(json.slice(0, at) + json.slice(at + 1), 'ntdll')]++;
    }
    expect(answered.fast).to.be.above(500);
    expect(answered.parse).to.be.above(500);
  });
});
