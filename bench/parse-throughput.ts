// Streaming parse throughput of the two outputs that get huge: a umdh comparison report and
// `!dumpheap -stat`. Issue #3 asks for >= 50 MB/s and a peak RSS <= 256 MB on 100 MB of each.
//
// The inputs are built in a temp dir from REAL transcript rows repeated (umdh entries of
// test/fixtures/transcripts/umdh/*, type rows of misc/dumpheap-stat-*), with the backtrace ids and method
// tables varied per copy so no two entries are identical. Each file is then read from disk in
// 1 MiB chunks, split into lines and fed to the streaming parser, which hands every entry to an
// aggregating onEntry and keeps none. The baseline is the same read + line split with no parser,
// in the same process, so the ratio shows what parsing costs on top of reading.
//
//   node --import tsx bench/parse-throughput.ts [--mb 100]
// (add --expose-gc to collect garbage before each measurement)
import {
  createReadStream,
  mkdtempSync,
  openSync,
  closeSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDumpHeapStatParser } from '../src/parsers/dump-heap-stat.js';
import { createChunkLineSplitter, type LineParser } from '../src/parsers/line-parser.js';
import { createUmdhDiffParser } from '../src/parsers/umdh.js';
import { transcriptBody } from '../test/parsers/heap-sos-umdh-transcripts.js';

const MB = 1024 * 1024;
const sizeArg = process.argv.indexOf('--mb');
const TARGET_MB = sizeArg > 0 ? Number(process.argv[sizeArg + 1]) : 100;
const TARGET_MB_PER_S = 50;
const TARGET_RSS_MB = 256;

// ---- building the inputs --------------------------------------------------------------------------

/** Writes `makeBlock(i)` for i = 0, 1, … until the file holds `bytes`; returns the copies written. */
function writeRepeated(
  path: string,
  head: string,
  makeBlock: (i: number) => string,
  tail: string,
  bytes: number,
): number {
  const fd = openSync(path, 'w');
  let written = writeSync(fd, head);
  let copies = 0;
  let chunk: string[] = [];
  let chunkLength = 0;
  while (written + chunkLength < bytes) {
    const block = makeBlock(copies++);
    chunk.push(block);
    chunkLength += block.length;
    if (chunkLength >= 4 * MB) {
      written += writeSync(fd, chunk.join(''));
      chunk = [];
      chunkLength = 0;
    }
  }
  written += writeSync(fd, chunk.join('') + tail);
  closeSync(fd);
  return copies;
}

/** The entry blocks (header lines + frames) of the real umdh comparison transcripts. */
function umdhEntryBlocks(): string[] {
  // onecode: two entries separated by a TAB-only line, nothing else.
  const onecode = transcriptBody('umdh/onecode-umdh-diff-plus-and-minus.txt')
    .replace(/\n+$/, '')
    .split(/\n[ \t]+\n/);
  // lowleveldesign: one entry between the preamble (and `...`) and the `Total increase` line.
  const lines = transcriptBody(
    'umdh/lowleveldesign-umdh-diff-with-total-increase-overhead.txt',
  ).split('\n');
  const first = lines.findIndex((line) => line.startsWith('+ '));
  const total = lines.findIndex((line) => line.startsWith('Total increase'));
  return [...onecode, lines.slice(first, total).join('\n')];
}

function buildUmdh(path: string, bytes: number): number {
  const blocks = umdhEntryBlocks();
  const legend = transcriptBody('umdh/strontic-umdh-10.0.19041-no-args-diff-header.txt')
    .split('\n')
    .filter((line) => line.startsWith('//'))
    .join('\n');
  const total = transcriptBody('umdh/lowleveldesign-umdh-diff-with-total-increase-overhead.txt')
    .split('\n')
    .find((line) => line.startsWith('Total increase'));
  // umdh separates entries with a whitespace-only line (a TAB in the onecode transcript).
  const copies = writeRepeated(
    path,
    `${legend}\n\n`,
    (i) => {
      const block = blocks[i % blocks.length] ?? '';
      const id = (0x10000 + i).toString(16).toUpperCase();
      return `${block.replace(/BackTrace[0-9A-Fa-f]+/g, `BackTrace${id}`)}\n\t\n`;
    },
    `${total ?? ''}\n`,
    bytes,
  );
  return copies;
}

function buildDumpHeapStat(path: string, bytes: number): number {
  const body = transcriptBody('misc/dumpheap-stat-netfx48-x86-no-total.txt').split('\n');
  const header = body.filter((line) => /^(?:Statistics:|\s+MT\s+Count)/.test(line)).join('\n');
  const rows = body.filter((line) => /^[0-9a-f]{8}\s/.test(line));
  return writeRepeated(
    path,
    `${header}\n`,
    (i) => {
      const row = rows[i % rows.length] ?? '';
      const mt = (0x10000000 + i).toString(16);
      return `${mt}${row.slice(8)}\n`;
    },
    '',
    bytes,
  );
}

// ---- measuring --------------------------------------------------------------------------------------

interface Run {
  seconds: number;
  lines: number;
  peakRssMb: number;
}

/** Reads `path` in 1 MiB chunks, splits lines and hands them to `onLine`, sampling RSS meanwhile. */
async function streamLines(path: string, onLine: (line: string) => void): Promise<Run> {
  let lines = 0;
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const splitter = createChunkLineSplitter((line) => {
    lines++;
    onLine(line);
  });
  const started = process.hrtime.bigint();
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: MB })) {
    splitter.write(chunk as string);
  }
  splitter.end();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { seconds, lines, peakRssMb: peak / MB };
}

async function measure<R>(
  label: string,
  path: string,
  makeParser: () => LineParser<R>,
  describe: (record: R) => string,
): Promise<boolean> {
  const sizeMb = statSync(path).size / MB;
  globalThis.gc?.();
  const split = await streamLines(path, () => undefined);
  globalThis.gc?.();
  const rssBeforeMb = process.memoryUsage().rss / MB;
  const parser = makeParser();
  const parse = await streamLines(path, (line) => parser.push(line));
  const record = parser.finish();
  const mbPerS = sizeMb / parse.seconds;
  const splitMbPerS = sizeMb / split.seconds;
  const ok = mbPerS >= TARGET_MB_PER_S && parse.peakRssMb <= TARGET_RSS_MB;
  console.log(`\n${label}: ${sizeMb.toFixed(1)} MB, ${parse.lines.toLocaleString('en')} lines`);
  console.log(
    `  read + split only : ${split.seconds.toFixed(2)} s  ${splitMbPerS.toFixed(0)} MB/s`,
  );
  console.log(
    `  read + split + parse: ${parse.seconds.toFixed(2)} s  ${mbPerS.toFixed(0)} MB/s` +
      `  (${(parse.seconds / split.seconds).toFixed(2)}x the split-only time)`,
  );
  console.log(
    `  RSS: ${rssBeforeMb.toFixed(0)} MB before the parse, peak ${parse.peakRssMb.toFixed(0)} MB ` +
      `sampled every 20 ms during it`,
  );
  console.log(`  record: ${describe(record)}`);
  console.log(
    `  target >= ${TARGET_MB_PER_S} MB/s and <= ${TARGET_RSS_MB} MB RSS: ${ok ? 'met' : 'NOT MET'}`,
  );
  return ok;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cdb-harness-bench-'));
  try {
    const umdhPath = join(dir, 'umdh-compare.txt');
    const dumpHeapPath = join(dir, 'dumpheap-stat.txt');
    const bytes = TARGET_MB * MB;
    const umdhCopies = buildUmdh(umdhPath, bytes);
    const typeCopies = buildDumpHeapStat(dumpHeapPath, bytes);
    console.log(
      `Inputs are REAL transcript rows repeated: ${umdhCopies.toLocaleString('en')} umdh entries ` +
        `(the 3 entries of umdh/onecode-* and umdh/lowleveldesign-*, backtrace ids varied) and ` +
        `${typeCopies.toLocaleString('en')} !dumpheap -stat rows (the 16 rows of ` +
        `misc/dumpheap-stat-netfx48-x86-no-total.txt, method tables varied). Node ${process.version}.`,
    );

    // Aggregation a caller would do instead of keeping entries.
    let growth = 0;
    let biggest = { backtrace: '', bytesDelta: 0 };
    const bySize = new Map<string, number>();
    const umdhOk = await measure(
      'umdh comparison report',
      umdhPath,
      () =>
        createUmdhDiffParser({
          onEntry: (entry) => {
            growth += entry.bytesDelta;
            if (entry.bytesDelta > biggest.bytesDelta) biggest = entry;
          },
        }),
      (r) =>
        `${(r.entryCount ?? 0).toLocaleString('en')} entries (kept: ${r.entries.length}), ` +
        `net growth ${growth} bytes, biggest ${biggest.backtrace}, totalIncrease ${r.totalIncrease}, ` +
        `${r.warnings.length} warnings`,
    );
    const dumpHeapOk = await measure(
      '!dumpheap -stat',
      dumpHeapPath,
      () =>
        createDumpHeapStatParser({
          onEntry: (type) =>
            bySize.set(type.className, (bySize.get(type.className) ?? 0) + type.totalSize),
        }),
      (r) =>
        `${(r.typeCount ?? 0).toLocaleString('en')} rows (kept: ${r.types.length}), ` +
        `${bySize.size} class names, ${r.warnings.length} warnings`,
    );
    console.log(
      `\nprocess maxRSS over the whole run (resourceUsage, includes building the inputs): ` +
        `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
    );
    if (!umdhOk || !dumpHeapOk) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
