import { expect } from 'chai';
import { localPaths } from '../../../src/platform/index.js';

describe('localPaths on a Windows host', () => {
  it('a recorded drive path is the file itself, not a Wine prefix’s copy', () => {
    expect(localPaths('C:\\windows\\system32\\ntdll.dll', undefined, 'win32')).to.deep.equal([
      'C:\\windows\\system32\\ntdll.dll',
    ]);
    expect(localPaths('Z:\\work\\av.exe', undefined, 'win32')).to.deep.equal(['Z:\\work\\av.exe']);
  });

  it('a named Wine prefix is looked in after the path itself', () => {
    const paths = localPaths('C:\\windows\\system32\\ntdll.dll', 'D:\\copy\\.wine', 'win32');
    expect(paths[0]).to.equal('C:\\windows\\system32\\ntdll.dll');
    expect(paths.length).to.be.greaterThan(1);
  });

  it('Linux maps through Wine’s drives as before', () => {
    expect(localPaths('Z:\\work\\av.exe', undefined, 'linux')).to.deep.equal(['/work/av.exe']);
    expect(localPaths('C:\\windows\\system32\\ntdll.dll', undefined, 'linux')).to.deep.equal([]);
  });
});
