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
});
