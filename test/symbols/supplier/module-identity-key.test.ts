// The key a module build's symbols are remembered under: the same for the same build, another
// for another build of the same file name, and following a module object whose fields change.
import { expect } from 'chai';
import { moduleIdentityKey } from '../../../src/symbols/supplier/module-identity-key.js';
import { symbolModule, TEST_DEBUG_ID } from '../../helpers/symbol-module.js';

const ID = TEST_DEBUG_ID;

describe('symbols: moduleIdentityKey', () => {
  it('names one build the same each time, and follows a module whose fields are replaced', () => {
    const m = symbolModule('app.pdb');
    const first = moduleIdentityKey(m);
    expect(moduleIdentityKey(m)).to.equal(first);
    expect(moduleIdentityKey(symbolModule('app.pdb'))).to.equal(first);
    // Another build (another debug id) of the same file name is another module.
    m.codeView = { pdbName: 'app.pdb', debugId: ID.replace('0', '9') };
    expect(moduleIdentityKey(m)).to.not.equal(first);
    expect(moduleIdentityKey(m)).to.equal(
      moduleIdentityKey(symbolModule('app.pdb', ID.replace('0', '9'))),
    );
    m.name = 'other.dll';
    expect(moduleIdentityKey(m)).to.match(/^other\.dll\|/);
  });

  it('tells apart builds that share a name, however many a batch meets', () => {
    const keys = new Set<string>();
    // More builds of one name than are kept by name: each still has a key of its own.
    for (let i = 0; i < 40; i++) {
      const id = `${String(i).padStart(32, '0')}1`;
      const key = moduleIdentityKey(symbolModule('app.pdb', id));
      expect(moduleIdentityKey(symbolModule('app.pdb', id)), id).to.equal(key);
      keys.add(key);
    }
    expect(keys.size).to.equal(40);
    // The code id and the PDB name count too; the file name's case does not.
    const base = symbolModule('app.pdb');
    const key = moduleIdentityKey(base);
    expect(moduleIdentityKey({ ...base, codeId: '5F3A1B2C8000' })).to.not.equal(key);
    expect(moduleIdentityKey(symbolModule('other.pdb'))).to.not.equal(key);
    expect(moduleIdentityKey({ ...base, name: 'APP.DLL' })).to.equal(key);
    const { name, path, timestamp, size } = base;
    expect(moduleIdentityKey({ name, path, timestamp, size })).to.not.equal(key);
  });
});
