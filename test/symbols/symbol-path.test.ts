// Symbol paths read the way cdb reads them
// (https://learn.microsoft.com/windows-hardware/drivers/debugger/symbol-path).
import { expect } from 'chai';
import {
  chooseSymbolPath,
  folderCandidates,
  parseSymbolPath,
  storeCandidates,
} from '../../src/symbols/index.js';

const DEFAULT = '/default/cache';

describe('symbols: symbol path', () => {
  it('reads plain folders, cache*, srv* with and without downstream stores, symsrv*', () => {
    const parsed = parseSymbolPath(
      ' /syms ;cache*/c1;SRV*/down1*/down2*https://store.example/s;srv*http://h/x;symsrv*symsrv.dll*/d3*https://b/y;;srv*/localstore',
      DEFAULT,
    );
    expect(parsed.notes).to.deep.equal([]);
    expect(parsed.elements).to.deep.equal([
      { kind: 'directory', path: '/syms' },
      {
        kind: 'store',
        upstream: 'https://store.example/s',
        downstream: ['/down1', '/down2'],
        usesDefaultCache: false,
        cache: '/c1',
      },
      {
        kind: 'store',
        upstream: 'http://h/x',
        downstream: ['/c1'],
        usesDefaultCache: true,
        cache: '/c1',
      },
      {
        kind: 'store',
        upstream: 'https://b/y',
        downstream: ['/d3'],
        usesDefaultCache: false,
        cache: '/c1',
      },
      {
        kind: 'store',
        upstream: '/localstore',
        downstream: [],
        usesDefaultCache: false,
        cache: '/c1',
      },
    ]);
  });

  it('srv*URL and srv**URL with no cache use the default downstream store; empty cache* too', () => {
    expect(parseSymbolPath('srv*https://a/b', DEFAULT).elements[0]).to.include({
      usesDefaultCache: true,
    });
    expect(parseSymbolPath('srv**https://a/b', DEFAULT).elements[0]).to.deep.include({
      downstream: [DEFAULT],
    });
    expect(parseSymbolPath('cache*;srv*https://a/b', DEFAULT).elements[0]).to.deep.include({
      cache: DEFAULT,
      downstream: [DEFAULT],
    });
  });

  it('notes elements it cannot use instead of failing', () => {
    const parsed = parseSymbolPath('weird*x;srv*;/ok', DEFAULT);
    expect(parsed.elements).to.deep.equal([{ kind: 'directory', path: '/ok' }]);
    expect(parsed.notes).to.have.length(2);
    expect(parsed.notes[0]).to.match(/unknown element prefix "weird\*"/);
    expect(parsed.notes[1]).to.match(/no store named/);
  });

  it('--symbols beats --symbol-path beats _NT_SYMBOL_PATH', () => {
    const env = { _NT_SYMBOL_PATH: 'srv*https://env/s' };
    expect(chooseSymbolPath('a', 'b', env)).to.deep.equal({ text: 'a', from: 'option' });
    expect(chooseSymbolPath(undefined, 'b', env)).to.deep.equal({ text: 'b', from: 'option' });
    expect(chooseSymbolPath(undefined, undefined, env)).to.deep.equal({
      text: 'srv*https://env/s',
      from: '_NT_SYMBOL_PATH',
    });
    expect(chooseSymbolPath(undefined, undefined, { _NT_SYMBOL_PATH: ' ' })).to.equal(undefined);
    expect(
      chooseSymbolPath(undefined, undefined, { ...env, _NT_ALT_SYMBOL_PATH: '/alt' }),
    ).to.deep.equal({ text: '/alt;srv*https://env/s', from: '_NT_SYMBOL_PATH' });
  });

  it('lays files out as stores and folders do', () => {
    const key = { name: 'app.pdb', id: 'E92ADD91690EC93C4C4C44205044422E1' };
    expect(
      storeCandidates(key, { twoTier: false }).map((c) => `${c.format} ${c.relative}`),
    ).to.deep.equal([
      'pdb app.pdb/E92ADD91690EC93C4C4C44205044422E1/app.pdb',
      'cab app.pdb/E92ADD91690EC93C4C4C44205044422E1/app.pd_',
      'breakpad app.pdb/E92ADD91690EC93C4C4C44205044422E1/app.sym',
    ]);
    expect(storeCandidates(key, { twoTier: true })[0]?.relative).to.equal(
      'ap/app.pdb/E92ADD91690EC93C4C4C44205044422E1/app.pdb',
    );
    expect(
      folderCandidates(key, { twoTier: false, imageExtension: 'dll' })
        .slice(0, 4)
        .map((c) => c.relative),
    ).to.deep.equal(['app.pdb', 'dll/app.pdb', 'symbols/dll/app.pdb', 'app.sym']);
    expect(
      storeCandidates({ name: 'app.exe', id: '5F3A1B2C4000' }, { twoTier: false, image: true }).map(
        (c) => c.relative,
      ),
    ).to.deep.equal(['app.exe/5F3A1B2C4000/app.exe', 'app.exe/5F3A1B2C4000/app.ex_']);
  });
});
