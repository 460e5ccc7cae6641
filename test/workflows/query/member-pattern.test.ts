// The pattern that reads a record line's members before the walk does (query's speed, issue 34)
// answers as the walk answers, or not at all: on a record line as JSON.stringify writes it, and on
// every line made from it by inserting a quote, a backslash, a bracket, a comma, a colon or a
// space at any place, deleting any one character, or tearing it at any place.
import { expect } from 'chai';
import { jsonMembers, walkMembers } from '../../../src/workflows/query/json-members.js';
import { patternMembers } from '../../../src/workflows/query/member-pattern.js';

const WANTED = ['file', 'sha256', 'bucket', 'exception', 'frames', 'modules', 'clrException'];

/** A record's shape (analyze-record.ts), with strings that hold what JSON escapes. */
const RECORD = {
  schemaVersion: 1,
  file: 'C:\\dumps\\a "quoted" ]} \u00e4.dmp',
  fileSize: 133653,
  sha256: '87a707198392320590139cb043717e3be0afcf45b485c050a7ec9c7bece5de4a',
  ok: true,
  process: { name: 'idle.exe', pid: 1244, file: 'not top-level' },
  exception: { code: '0xc0000005', registers: { rip: '0x1700555f5', efl: '0x246' } },
  frames: [
    { module: 'ntdll', function: 'Rtl{Frame}0', offset: '0x0', inline: true },
    { module: 'app', function: 'a \\" b', source: 'x.c @ 1' },
  ],
  modules: { faulting: { name: 'app.exe' }, list: [{ name: 'ntdll.dll', versions: [[1, 2]] }] },
  warnings: ['"frames":[]', '\\'],
  bucket: { id: '0123456789abcdef', signature: 'a | b' },
  threadCount: 1,
};

/** A shape for the test: a file name of small letters, as a string. */
const SHAPES = new Map([['file', '"[a-z.]*"']]);

function same(text: string, shapes?: typeof SHAPES): 'pattern' | 'walk' {
  const byPattern = patternMembers(text, WANTED, shapes)?.members ?? null;
  const byWalk = walkMembers(text, 0, text.length, WANTED);
  if (byPattern === null) return 'walk';
  expect(byWalk, text).to.not.equal(undefined);
  expect([...byPattern], text).to.deep.equal([...byWalk!]);
  return 'pattern';
}

describe('patternMembers: the walk by one regular expression, where it can tell', () => {
  it('reads a record line as JSON.stringify writes it, as JSON.parse reads its members', () => {
    const text = JSON.stringify(RECORD);
    const found = patternMembers(text, WANTED)!.members;
    expect([...found.keys()].sort()).to.deep.equal(
      ['bucket', 'exception', 'file', 'frames', 'modules', 'sha256'].sort(),
    );
    for (const [name, json] of found) {
      expect(JSON.parse(json), name).to.deep.equal(RECORD[name as keyof typeof RECORD]);
    }
    expect(same(text)).to.equal('pattern');
    // A member given twice keeps its last value; a member named like a wanted one is not it.
    expect(patternMembers('{"file":"a","fileSize":1,"file":"b"}', ['file'])).to.deep.equal({
      members: new Map([['file', '"b"']]),
      shaped: new Set(),
    });
  });

  it('says which members have the shape given for them, the last of a name given twice', () => {
    const shaped = (text: string) => [...patternMembers(text, WANTED, SHAPES)!.shaped];
    expect(shaped('{"file":"a.dmp","sha256":"x"}')).to.deep.equal(['file']);
    expect(shaped('{"file":"A.dmp","sha256":"x"}')).to.deep.equal([]);
    expect(shaped('{"file":"A.dmp","file":"a.dmp"}')).to.deep.equal(['file']);
    expect(shaped('{"file":"a.dmp","file":"A.dmp"}')).to.deep.equal([]);
    expect(
      patternMembers('{"file":"a.dmp","file":"A.dmp"}', WANTED, SHAPES)!.members,
    ).to.deep.equal(new Map([['file', '"A.dmp"']]));
  });

  it('leaves to the walk what it cannot tell', () => {
    for (const text of [
      '{ "file":"a"}',
      '{"fil\\u0065":"a"}',
      '{"file": "a"}',
      '{}',
      `{"deep":${'['.repeat(8)}${']'.repeat(8)},"file":"a"}`,
      '{"file":"a"]',
      '{"file":"a"',
    ]) {
      expect(patternMembers(text, ['file']), text).to.equal(null);
    }
    // and jsonMembers then reads it by the walk.
    const escaped = '{"fil\\u0065": "a"}';
    expect(jsonMembers(escaped, 0, escaped.length, ['file'])?.get('file')).to.equal('"a"');
  });

  it('answers as the walk does on every line made from a record by one edit', () => {
    const text = JSON.stringify(RECORD);
    const answered = { pattern: 0, walk: 0 };
    for (let at = 0; at <= text.length; at++) {
      for (const insert of ['"', '\\', '{', '}', '[', ']', ',', ':', ' ']) {
        answered[same(text.slice(0, at) + insert + text.slice(at))]++;
        same(text.slice(0, at) + insert + text.slice(at), SHAPES);
      }
      answered[same(text.slice(0, at) + text.slice(at + 1))]++;
      answered[same(text.slice(0, at))]++;
    }
    // Both ways were taken often: the comparison above is not empty.
    expect(answered.pattern).to.be.above(1000);
    expect(answered.walk).to.be.above(1000);
  });
});
