// The streams of an open dump (src/minidump/dump-streams.ts): each parsed once through one guard
// (a malformed stream is a warning and the fallback, an I/O failure goes up), strings read once
// per RVA, references past the end counted, and the budget of followed bytes kept.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BadDumpError, IoError } from '../../src/errors.js';
import { parseDirectory } from '../../src/minidump/directory.js';
import { DumpStreams } from '../../src/minidump/dump-streams.js';
import { PositionedFileReader } from '../../src/minidump/file-reader.js';
import { openMinidump, type Minidump } from '../../src/minidump/minidump.js';
import { MAX_REFERENCED_BYTES } from '../../src/minidump/read-limits.js';
import type { StreamContext } from '../../src/minidump/stream-context.js';
import { WarningLog } from '../../src/warning-log.js';
import { mutate, random } from '../helpers/dump-mutations.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { DumpBuilder } from './helpers/dump-builder.js';
import { richDump } from './helpers/rich-dump.js';

const COMMENT_A = 0xa;

async function open(
  bytes: Buffer,
): Promise<{ streams: DumpStreams; reader: PositionedFileReader }> {
  const file = join(makeTempDir('dump-streams'), 'x.dmp');
  writeFileSync(file, bytes);
  const reader = await PositionedFileReader.open(file);
  const count = bytes.readUInt32LE(8);
  const directory = bytes.subarray(32, 32 + 12 * count);
  const warnings = new WarningLog();
  const list = parseDirectory(file, directory, bytes.length, (m) => warnings.add(m));
  return { streams: new DumpStreams(reader, list, warnings), reader };
}

describe('dump streams (src/minidump/dump-streams.ts)', () => {
  it('parses a stream once, and turns a malformed one into a warning and the fallback', async () => {
    const b = new DumpBuilder(1);
    b.stream(COMMENT_A, Buffer.from('hello\0', 'latin1'));
    const { streams, reader } = await open(b.build());
    try {
      let calls = 0;
      const text = (ctx: StreamContext) => {
        calls++;
        return ctx.data.toString('latin1');
      };
      expect(await streams.parse(COMMENT_A, '', text)).to.equal('hello\0');
      expect(await streams.parse(COMMENT_A, '', text)).to.equal('hello\0');
      expect(calls).to.equal(1);
      const info = streams.find(COMMENT_A);
      if (info === undefined) throw new Error('no comment stream');
      const broken = await streams.guard(info, 'fallback', () => {
        throw new BadDumpError('x.dmp', 'entry 3 runs past the stream');
      });
      expect(broken).to.equal('fallback');
      expect(streams.warnings().join('\n')).to.match(/unreadable \(.*runs past the stream\)/);
      // An I/O failure is not the stream's fault: it goes to the caller.
      let thrown: unknown;
      await streams
        .guard(info, 'fallback', () => {
          throw new IoError('read failed');
        })
        .catch((error: unknown) => (thrown = error));
      expect(thrown).to.be.instanceOf(IoError);
    } finally {
      await reader.close();
    }
  });

  it('reads a string once per RVA, and counts one that lies past the end of the file', async () => {
    const b = new DumpBuilder(1);
    const name = b.string('app.exe');
    b.stream(COMMENT_A, Buffer.alloc(4));
    const bytes = b.build();
    const { streams, reader } = await open(bytes);
    try {
      const strings = await streams.parse(COMMENT_A, [] as (string | null)[], async (ctx) => [
        await ctx.readString(name, 'module name'),
        await ctx.readString(name, 'module name'),
        await ctx.readString(bytes.length + 64, 'module name'),
      ]);
      expect(strings).to.deep.equal(['app.exe', 'app.exe', null]);
      expect(streams.pastEnd().get('CommentA strings')).to.equal(1);
    } finally {
      await reader.close();
    }
  });

  it('follows references only within the budget, and says when it is spent', async () => {
    const b = new DumpBuilder(1);
    b.stream(COMMENT_A, Buffer.alloc(4));
    const { streams, reader } = await open(b.build());
    try {
      const answers = await streams.parse(COMMENT_A, [] as boolean[], (ctx) => [
        ctx.followReference(MAX_REFERENCED_BYTES - 10),
        ctx.followReference(11),
        ctx.followReference(10),
      ]);
      expect(answers).to.deep.equal([true, false, true]);
      expect(streams.warnings().join('\n')).to.match(/references more than \d+ bytes/);
    } finally {
      await reader.close();
    }
  });
});

describe('streams of a dump held in memory', () => {
  // Strings and CodeView records of a dump held in memory are read without a promise (the
  // module list's names and records, SystemInfo's CSD, thread names, handle types). Seeded
  // damage of a dump with every stream: read from the file and from the held bytes, each stream
  // and every warning and past-the-end count must be the same.
  it('reads damaged dumps exactly as from the file', async () => {
    const dir = makeTempDir('held-streams');
    const source = richDump();
    let modulesSeen = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const { bytes, label } = mutate(source, random(seed));
      const file = join(dir, `${seed}.dmp`);
      writeFileSync(file, bytes);
      const read = async (held: boolean) => {
        let dump: Minidump;
        try {
          dump = await openMinidump(file, held ? { bytes } : {});
        } catch (error) {
          return { error: String(error) };
        }
        try {
          const streams = {
            modules: await dump.modules(),
            system: await dump.systemInfo(),
            threads: await dump.threads(),
            handles: await dump.handles(),
            unloaded: await dump.unloadedModules(),
          };
          return { streams, warnings: dump.warnings(), pastEnd: [...dump.pastEnd()] };
        } finally {
          await dump.close();
        }
      };
      const fromFile = await read(false);
      const fromHeld = await read(true);
      expect(fromHeld, `seed ${seed} (${label})`).to.deep.equal(fromFile);
      if ('streams' in fromFile && fromFile.streams) modulesSeen += fromFile.streams.modules.length;
    }
    // Most damaged copies still have their modules: the module list path was compared.
    expect(modulesSeen).to.be.greaterThan(150);
  });
});
