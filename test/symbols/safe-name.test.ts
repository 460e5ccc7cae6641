// Names from dumps become cache paths and URL paths only as one safe segment: the hostile forms
// a dump can carry (`..`, separators, drive letters, NUL, device names, very long names) are
// reduced or refused with a reason, and ids are hex digits only.
import { expect } from 'chai';
import {
  folderCandidates,
  MAX_SEGMENT_BYTES,
  safeFileName,
  safeId,
  safeKey,
  storeCandidates,
  urlPath,
} from '../../src/symbols/index.js';

const ID = '0123456789ABCDEF0123456789ABCDEF1';

describe('symbols: names from dumps made safe', () => {
  it('reduces a path to its file name, drive letters and all', () => {
    for (const [raw, name] of [
      ['app.pdb', 'app.pdb'],
      ['C:\\build\\out\\app.pdb', 'app.pdb'],
      ['/home/ci/out/app.pdb', 'app.pdb'],
      ['C:app.pdb', 'app.pdb'],
      ['sub/dir\\App.PDB', 'App.PDB'],
      ['%2e%2e', '%2e%2e'],
    ] as const) {
      expect(safeFileName(raw, 'PDB name')).to.deep.equal({ ok: true, name });
    }
  });

  it('refuses what cannot be made safe, saying why', () => {
    const refused: [string, RegExp][] = [
      ['..', /file name is "\.\."/],
      ['app.pdb\\..', /file name is "\.\."/],
      ['app.pdb/..', /file name is "\.\."/],
      ['.', /file name is "\."/],
      ['C:', /no file name/],
      ['dir\\', /no file name/],
      ['', /no file name/],
      ['app\0.pdb', /NUL/],
      ['..app.pdb', /starts with "\.\."/],
      ['app.pdb:stream', /control character or one of/],
      ['a?.pdb', /control character or one of/],
      ['a\u0001.pdb', /control character/],
      ['app.pdb.', /ends in a dot/],
      ['NUL.pdb', /device name/],
      ['com1', /device name/],
      [`${'a'.repeat(MAX_SEGMENT_BYTES)}.pdb`, /longer than 200 bytes/],
      [`${'é'.repeat(120)}`, /longer than 200 bytes/],
    ];
    for (const [raw, why] of refused) {
      const result = safeFileName(raw, 'PDB name');
      expect(result.ok, raw).to.equal(false);
      if (!result.ok)
        expect(result.reason, raw)
          .to.match(/^PDB name ".*" refused: /)
          .and.match(why);
    }
    // The reason quotes a long name cut short, never the whole of it.
    const long = safeFileName('x'.repeat(100_000), 'PDB name');
    expect(!long.ok && long.reason.length < 200).to.equal(true);
  });

  it('takes ids of hex digits only', () => {
    expect(safeId(ID, 'debug id')).to.deep.equal({ ok: true, name: ID });
    for (const raw of ['', '..', `${ID}/..`, 'ABC\\DEF', 'AB\0CD', 'g123', 'A'.repeat(73)]) {
      const result = safeId(raw, 'debug id');
      expect(result.ok, raw).to.equal(false);
      if (!result.ok)
        expect(result.reason).to.match(/^debug id .* refused: not 1 to 72 hex digits/);
    }
  });

  it('never lays out a candidate outside the store, whatever the key', () => {
    expect(() => storeCandidates({ name: '..', id: ID }, { twoTier: false })).to.throw(/refused/);
    expect(() => folderCandidates({ name: 'a.pdb', id: '../x' }, { twoTier: true })).to.throw(
      /refused/,
    );
    const ok = safeKey({ name: 'C:\\b\\App.pdb', id: ID });
    expect(ok.ok && storeCandidates(ok.key, { twoTier: true })[0]?.relative).to.equal(
      `ap/App.pdb/${ID}/App.pdb`,
    );
  });

  it('percent-encodes each URL segment, so no segment is read as a dot segment or a query', () => {
    expect(urlPath(`a b#.pdb/${ID}/a b#.pdb`)).to.equal(`a%20b%23.pdb/${ID}/a%20b%23.pdb`);
    expect(urlPath('%2e%2e/x')).to.equal('%252e%252e/x');
    expect(new URL(`http://h/prefix/${urlPath('%2e%2e/x/%2e%2e')}`).pathname).to.equal(
      '/prefix/%252e%252e/x/%252e%252e',
    );
  });
});
