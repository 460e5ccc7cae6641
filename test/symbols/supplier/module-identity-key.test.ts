// The key a module build's symbols are remembered under: the same for the same build, another
// for another build of the same file name, and following a module object whose fields change.
import { expect } from 'chai';
import {
  moduleIdentityKey,
  type SymbolModule,
} from '../../../src/symbols/supplier/module-identity-key.js';

const ID = '0123456789ABCDEF0123456789ABCDEF1';

function module(pdbName: string, debugId = ID, name = 'app.dll'): SymbolModule {
  return {
    name,
    path: `C:\\app\\${name}`,
    timestamp: 0x5f3a1b2c,
    size: 0x8000,
    codeView: { pdbName, debugId },
  };
}

describe('symbols: moduleIdentityKey', () => {
  it('names one build the same each time, and follows a module whose fields are replaced', () => {
    const m = module('app.pdb');
    const first = moduleIdentityKey(m);
    expect(moduleIdentityKey(m)).to.equal(first);
    expect(moduleIdentityKey(module('app.pdb'))).to.equal(first);
    // Another build (another debug id) of the same file name is another module.
    m.codeView = { pdbName: 'app.pdb', debugId: ID.replace('0', '9') };
    expect(moduleIdentityKey(m)).to.not.equal(first);
    expect(moduleIdentityKey(m)).to.equal(
      moduleIdentityKey(module('app.pdb', ID.replace('0', '9'))),
    );
    m.name = 'other.dll';
    expect(moduleIdentityKey(m)).to.match(/^other\.dll\|/);
  });
});
