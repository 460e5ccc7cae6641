// CodeView records (src/minidump/streams/codeview.ts): the RSDS GUID and debug id are written
// digit by digit; here they are checked against the layout minidumpapiset.h / the PDB format
// documents (Data1 u32, Data2 u16, Data3 u16 little-endian, Data4 8 bytes; debug id = GUID hex
// + age hex, upper case) on seeded random records, and on the GUID of a real Windows module.
import { expect } from 'chai';
import { parseCodeView } from '../../../src/minidump/streams/codeview.js';
import { xorshift32 } from '../../helpers/seeded-random.js';

function rsds(guid: Buffer, age: number, pdbPath: string): Buffer {
  const head = Buffer.alloc(24);
  head.write('RSDS', 0, 'latin1');
  guid.copy(head, 4);
  head.writeUInt32LE(age, 20);
  return Buffer.concat([head, Buffer.from(`${pdbPath}\0`, 'utf8')]);
}

/** The registry-form GUID from its fields, as the format defines them. */
function expectedGuid(guid: Buffer): string {
  const hex = (value: number, width: number) => value.toString(16).padStart(width, '0');
  return [
    hex(guid.readUInt32LE(0), 8),
    hex(guid.readUInt16LE(4), 4),
    hex(guid.readUInt16LE(6), 4),
    guid.subarray(8, 10).toString('hex'),
    guid.subarray(10, 16).toString('hex'),
  ].join('-');
}

describe('CodeView records (src/minidump/streams/codeview.ts)', () => {
  it('gives the GUID and debug id of a real module', () => {
    // wkernel32.pdb of Windows 7 x86 (kernel32.dll 6.1.7600.16385): GUID
    // {247c9009-e69b-43ab-95e8-dda34622320a}, age 2, debug id 247C9009E69B43AB95E8DDA34622320A2.
    const guid = Buffer.alloc(16);
    guid.writeUInt32LE(0x247c9009, 0);
    guid.writeUInt16LE(0xe69b, 4);
    guid.writeUInt16LE(0x43ab, 6);
    Buffer.from('95e8dda34622320a', 'hex').copy(guid, 8);
    const info = parseCodeView(rsds(guid, 2, 'wkernel32.pdb'));
    expect(info).to.deep.equal({
      format: 'RSDS',
      pdbPath: 'wkernel32.pdb',
      pdbName: 'wkernel32.pdb',
      guid: '247c9009-e69b-43ab-95e8-dda34622320a',
      debugId: '247C9009E69B43AB95E8DDA34622320A2',
      age: 2,
    });
  });

  it('formats seeded random GUIDs and ages as their fields say', () => {
    const next = xorshift32(19);
    for (let n = 0; n < 500; n++) {
      const guid = Buffer.alloc(16);
      for (let i = 0; i < 16; i += 4) guid.writeUInt32LE(next(), i);
      // Ages of every width: 0, small, and up to 0xffffffff.
      const age = n % 5 === 0 ? 0 : next() >>> (next() % 32);
      const info = parseCodeView(rsds(guid, age, `D:\\build\\m${n}.pdb`));
      const expected = expectedGuid(guid);
      expect(info.guid, `record ${n}`).to.equal(expected);
      expect(info.debugId, `record ${n}`).to.equal(
        `${expected.replaceAll('-', '')}${age.toString(16)}`.toUpperCase(),
      );
      expect(info.age).to.equal(age);
      expect(info.pdbName).to.equal(`m${n}.pdb`);
    }
  });
});
