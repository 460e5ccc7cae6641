// A dbghelp-style dump with one stream of every kind the reader knows (synthetic: built here,
// field by field, from minidumpapiset.h's layouts), shared by the reader's and the processor's
// tests.
import { DumpBuilder, struct } from './dump-builder.js';

export const GUID = {
  d1: 0x5a9832e5,
  d2: 0x2872,
  d3: 0x41c1,
  d4: Buffer.from('838ed98914e9b7ff', 'hex'),
  age: 1,
};

/** A dbghelp-style dump with one of everything, built fresh for each test. */
export function richDump(): Buffer {
  const b = new DumpBuilder(15);
  const exePath = b.string('C:\\app\\bin\\app.exe');
  const dllPath = b.string('C:\\Windows\\System32\\old.dll');
  const unloadedPath = b.string('C:\\plugins\\gone.dll');
  const csd = b.string('Service Pack 2');
  const eventType = b.string('Event');
  const fileType = b.string('File');
  const threadName = b.string('worker-pool #1');
  const cv = b.append(
    Buffer.concat([
      struct(24, (s) => {
        s.write('RSDS', 0, 'latin1');
        s.writeUInt32LE(GUID.d1, 4);
        s.writeUInt16LE(GUID.d2, 8);
        s.writeUInt16LE(GUID.d3, 10);
        GUID.d4.copy(s, 12);
        s.writeUInt32LE(GUID.age, 20);
      }),
      Buffer.from('D:\\build\\out\\app.pdb\0', 'latin1'),
    ]),
  );
  const nb10 = b.append(
    Buffer.concat([
      struct(16, (s) => {
        s.write('NB10', 0, 'latin1');
        s.writeUInt32LE(0x3a1b2c3d, 8);
        s.writeUInt32LE(2, 12);
      }),
      Buffer.from('old.pdb\0', 'latin1'),
    ]),
  );
  const memA = b.append(Buffer.alloc(0x100, 0xaa));
  const memB = b.append(Buffer.alloc(0x100, 0xbb));
  b.stream(
    7,
    struct(56, (s) => {
      s.writeUInt16LE(9, 0);
      s.writeUInt8(8, 6);
      s.writeUInt8(1, 7);
      s.writeUInt32LE(10, 8);
      s.writeUInt32LE(0, 12);
      s.writeUInt32LE(19042, 16);
      s.writeUInt32LE(2, 20);
      s.writeUInt32LE(csd, 24);
    }),
  );
  const module = (
    base: bigint,
    size: number,
    name: number,
    cvRva: number,
    cvSize: number,
    ts: number,
  ) =>
    struct(108, (m) => {
      m.writeBigUInt64LE(base, 0);
      m.writeUInt32LE(size, 8);
      m.writeUInt32LE(0x1234, 12);
      m.writeUInt32LE(ts, 16);
      m.writeUInt32LE(name, 20);
      m.writeUInt32LE(0xfeef04bd, 24);
      m.writeUInt32LE((10 << 16) | 0, 32);
      m.writeUInt32LE((19041 << 16) | 1202, 36);
      m.writeUInt32LE(cvSize, 76);
      m.writeUInt32LE(cvRva, 80);
    });
  b.stream(
    4,
    Buffer.concat([
      struct(4, (s) => s.writeUInt32LE(2, 0)),
      module(0x7ff600000000n, 0x2d000, exePath, cv, 24 + 21, 0x45d35f6c),
      module(0x7ffa00000000n, 0x1000, dllPath, nb10, 16 + 8, 0x11111111),
    ]),
  );
  const thread = (id: number, teb: bigint) =>
    struct(48, (t) => {
      t.writeUInt32LE(id, 0);
      t.writeUInt32LE(1, 4);
      t.writeBigUInt64LE(teb, 16);
      t.writeBigUInt64LE(0x1000n, 24);
      t.writeUInt32LE(0x100, 32);
      t.writeUInt32LE(memA, 36);
    });
  b.stream(
    3,
    Buffer.concat([
      struct(4, (s) => s.writeUInt32LE(2, 0)),
      thread(0x1a2b, 0x7000n),
      thread(0x3c4d, 0x8000n),
    ]),
  );
  b.stream(
    24,
    Buffer.concat([
      struct(4, (s) => s.writeUInt32LE(1, 0)),
      struct(12, (s) => (s.writeUInt32LE(0x3c4d, 0), s.writeBigUInt64LE(BigInt(threadName), 4))),
    ]),
  );
  b.stream(
    17,
    Buffer.concat([
      struct(12, (s) => (s.writeUInt32LE(12, 0), s.writeUInt32LE(64, 4), s.writeUInt32LE(1, 8))),
      struct(64, (t) => {
        t.writeUInt32LE(0x3c4d, 0);
        t.writeUInt32LE(2, 4); // MINIDUMP_THREAD_INFO_WRITING_THREAD
        t.writeBigUInt64LE(5_000_000n, 32); // kernel 500 ms
        t.writeBigUInt64LE(12_340_000n, 40); // user 1234 ms
        t.writeBigUInt64LE(0x7ff600001000n, 48);
      }),
    ]),
  );
  b.stream(
    5,
    Buffer.concat([
      struct(4, (s) => s.writeUInt32LE(2, 0)),
      struct(
        16,
        (d) => (
          d.writeBigUInt64LE(0x1000n, 0),
          d.writeUInt32LE(0x100, 8),
          d.writeUInt32LE(memA, 12)
        ),
      ),
      // Adjacent to the first: a read may run from one into the other.
      struct(
        16,
        (d) => (
          d.writeBigUInt64LE(0x1100n, 0),
          d.writeUInt32LE(0x100, 8),
          d.writeUInt32LE(memB, 12)
        ),
      ),
    ]),
  );
  b.stream(
    6,
    struct(168, (e) => {
      e.writeUInt32LE(0x1a2b, 0);
      e.writeUInt32LE(0xc0000409, 8);
      e.writeUInt32LE(1, 12);
      e.writeBigUInt64LE(0x7ff600001234n, 24);
      e.writeUInt32LE(1, 32);
      e.writeBigUInt64LE(7n, 40);
    }),
  );
  b.stream(
    15,
    struct(1364, (m) => {
      m.writeUInt32LE(1364, 0);
      m.writeUInt32LE(0x1 | 0x2 | 0x100, 4);
      m.writeUInt32LE(4242, 8);
      m.writeUInt32LE(1_699_999_900, 12);
      m.writeUInt32LE(3, 16);
      m.writeUInt32LE(1, 20);
      m.write('19041.1.amd64fre.vb_release.191206-1406', 232, 'utf16le');
      m.write('dbgcore.amd64,10.0.19041.1', 752, 'utf16le');
    }),
  );
  b.stream(
    12,
    Buffer.concat([
      struct(16, (h) => (h.writeUInt32LE(16, 0), h.writeUInt32LE(32, 4), h.writeUInt32LE(3, 8))),
      struct(32, (d) => (d.writeBigUInt64LE(4n, 0), d.writeUInt32LE(eventType, 8))),
      struct(32, (d) => (d.writeBigUInt64LE(8n, 0), d.writeUInt32LE(eventType, 8))),
      struct(32, (d) => (d.writeBigUInt64LE(12n, 0), d.writeUInt32LE(fileType, 8))),
    ]),
  );
  const region = (base: bigint, size: bigint, state: number, protect: number, type: number) =>
    struct(48, (r) => {
      r.writeBigUInt64LE(base, 0);
      r.writeBigUInt64LE(size, 24);
      r.writeUInt32LE(state, 32);
      r.writeUInt32LE(protect, 36);
      r.writeUInt32LE(type, 40);
    });
  b.stream(
    16,
    Buffer.concat([
      struct(
        16,
        (h) => (h.writeUInt32LE(16, 0), h.writeUInt32LE(48, 4), h.writeBigUInt64LE(3n, 8)),
      ),
      region(0x10000n, 0x4000n, 0x1000, 0x04, 0x20000),
      region(0x20000n, 0x2000n, 0x1000, 0x20, 0x1000000),
      region(0x30000n, 0x8000n, 0x2000, 0, 0x20000),
    ]),
  );
  b.stream(10, Buffer.from('ansi note\0', 'latin1'));
  b.stream(11, Buffer.from('wide note\0', 'utf16le'));
  b.stream(
    22,
    struct(152, (v) => {
      v.writeUInt16LE(2, 0);
      v.writeBigUInt64LE(64n << 20n, 16);
      v.writeBigUInt64LE(48n << 20n, 88);
    }),
  );
  b.stream(
    14,
    Buffer.concat([
      struct(12, (h) => (h.writeUInt32LE(12, 0), h.writeUInt32LE(24, 4), h.writeUInt32LE(1, 8))),
      struct(
        24,
        (u) => (
          u.writeBigUInt64LE(0x7ffb00000000n, 0),
          u.writeUInt32LE(0x5000, 8),
          u.writeUInt32LE(unloadedPath, 20)
        ),
      ),
    ]),
  );
  b.stream(0x13572468, Buffer.from('an application stream'));
  return b.build({ version: 0x61b1a793, flags: 0x1826n });
}
