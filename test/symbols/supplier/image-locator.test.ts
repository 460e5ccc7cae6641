// Where a recorded module path may be on this machine: Wine maps drive Z: to the unix root and
// C: to the prefix's drive_c (https://gitlab.winehq.org/wine/wine/-/wikis/FAQ, "drive letters").
import { expect } from 'chai';
import { localPaths } from '../../../src/symbols/supplier/image-locator.js';

describe('image locator: recorded paths mapped to this machine', () => {
  it('maps Z:\\ to the unix root, whatever the slashes', () => {
    expect(localPaths('Z:\\work\\main\\build\\targets\\av.exe', undefined)).to.deep.equal([
      '/work/main/build/targets/av.exe',
    ]);
    expect(localPaths('z:/tmp/x.dll', undefined)).to.deep.equal(['/tmp/x.dll']);
  });

  it('maps other drives into the Wine prefix, as written and lower-cased', () => {
    expect(localPaths('C:\\windows\\system32\\ntdll.dll', '/p')).to.deep.equal([
      '/p/drive_c/windows/system32/ntdll.dll',
    ]);
    expect(localPaths('C:\\Windows\\System32\\KERNEL32.dll', '/p')).to.deep.equal([
      '/p/drive_c/Windows/System32/KERNEL32.dll',
      '/p/drive_c/windows/system32/kernel32.dll',
    ]);
    expect(localPaths('C:\\windows\\ntdll.dll', undefined)).to.deep.equal([]);
  });

  it('keeps unix paths and ignores relative or UNC ones', () => {
    expect(localPaths('/usr/lib/x.so', '/p')).to.deep.equal(['/usr/lib/x.so']);
    expect(localPaths('av.exe', '/p')).to.deep.equal([]);
    expect(localPaths('\\\\server\\share\\av.exe', '/p')).to.deep.equal([]);
  });
});
