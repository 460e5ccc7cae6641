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
import { MAX_REFERENCED_BYTES } from '../../src/minidump/read-limits.js';
import type { StreamContext } from '../../src/minidump/stream-context.js';
import { WarningLog } from '../../src/warning-log.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { DumpBuilder } from './helpers/dump-builder.js';

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
