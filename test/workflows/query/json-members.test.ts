// The members of a record line found without parsing the rest (query's speed, issue 34): every
// value read equals what JSON.parse gives for it, whatever the strings hold (quotes, escapes,
// brackets), and a line that is not one whole object (torn, two objects, a member lacking its
// value) is refused, as JSON.parse refuses it.
import { expect } from 'chai';
import { jsonMembers } from '../../../src/workflows/query/json-members.js';

const WANTED = ['file', 'frames', 'bucket', 'code'];

function members(text: string) {
  const found = jsonMembers(text, 0, text.length, WANTED);
  return found === undefined ? undefined : Object.fromEntries(found);
}

describe('jsonMembers: a JSON object line, top-level members only', () => {
  it('gives the JSON text of the wanted members, as JSON.parse reads them', () => {
    const record = {
      schemaVersion: 1,
      file: 'C:\\dumps\\a "quoted" ] } name.dmp',
      process: { name: 'x.exe', frames: ['not', 'top-level'] },
      frames: [{ module: 'av', function: 'f{', offset: '0x1' }, { module: '\\"' }],
      message: 'a string with "file": inside, and \\\\" escapes',
      bucket: null,
      code: 5,
    };
    const text = JSON.stringify(record);
    const found = members(text)!;
    expect(Object.keys(found).sort()).to.deep.equal(['bucket', 'code', 'file', 'frames']);
    for (const [key, json] of Object.entries(found)) {
      expect(JSON.parse(json), key).to.deep.equal(record[key as keyof typeof record]);
    }
  });

  it('reads white space between tokens, escaped member names, and a member given twice', () => {
    const text = ' { "file" : "a" ,\n\t"fr\\u0061mes":[ 1 , 2 ] , "file":"b" } ';
    expect(members(text)).to.deep.equal({ file: '"b"', frames: '[ 1 , 2 ]' });
    expect(members('{}')).to.deep.equal({});
  });

  it('refuses what is not one whole object', () => {
    for (const text of [
      '{"file": "/x.dmp", "sha2',
      '{"file":"a","frames":[1,2}',
      '{"file":"a"',
      '{"file":"a"}{"file":"b"}',
      '{"file":}',
      '{"file"}',
      '{"file":"a",}',
      '{,"file":"a"}',
      '["file"]',
      '',
      'null',
    ]) {
      expect(members(text), text).to.equal(undefined);
      expect(() => JSON.parse(text) as unknown, text).to.satisfy((parse: () => unknown) => {
        try {
          const value = parse();
          return typeof value !== 'object' || value === null || Array.isArray(value);
        } catch {
          return true;
        }
      });
    }
  });

  it('reads a span of a longer text', () => {
    const text = 'junk{"code":"0xc0000005"}junk';
    expect(jsonMembers(text, 4, text.length - 4, ['code'])?.get('code')).to.equal('"0xc0000005"');
  });
});
