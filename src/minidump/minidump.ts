// An open minidump: header and directory read eagerly (32 + 12·N bytes), every stream parsed on
// first use and cached, memory read on demand through one merged address map. A stream that
// cannot be parsed becomes a warning and an empty answer; only an unreadable header or directory
// (BadDumpError) or an I/O failure (IoError) is thrown.
import { BadDumpError, isHarnessError } from '../errors.js';
import { WarningLog } from '../warning-log.js';
import { directoryExtent, parseDirectory, type StreamInfo } from './directory.js';
import { HEADER_SIZE, parseHeader, type MinidumpHeader } from './header.js';
import { MemoryMap, type MemoryMapStats } from './memory-map.js';
import { PositionedFileReader } from './file-reader.js';
import type { StreamContext } from './stream-context.js';
import { StreamType } from './stream-types.js';
import { readMinidumpString } from './strings.js';
import { parseBreakpadInfo, type BreakpadInfo } from './streams/breakpad-info.js';
import { parseComment } from './streams/comment.js';
import { parseException, type DumpException } from './streams/exception.js';
import { parseHandleData, type HandleSummary } from './streams/handle-data.js';
import {
  parseMemoryInfoList,
  summarizeMemoryInfo,
  type MemoryInfoSummary,
  type MemoryRegion,
} from './streams/memory-info-list.js';
import {
  allocRangeColumns,
  parseMemory64List,
  parseMemoryList,
  type CapturedRange,
  type MemoryListResult,
} from './streams/memory-lists.js';
import { parseMiscInfo, type MiscInfo } from './streams/misc-info.js';
import {
  MAX_MODULES,
  MODULE_ENTRY_SIZE,
  parseModuleList,
  type DumpModule,
} from './streams/module-list.js';
import { parseProcessVmCounters, type ProcessVmCounters } from './streams/process-vm-counters.js';
import { parseSystemInfo, type SystemInfo } from './streams/system-info.js';
import { parseThreadInfoList, type ThreadInfo } from './streams/thread-info-list.js';
import { MAX_THREADS, parseThreadList, type DumpThread } from './streams/thread-list.js';
import { parseThreadNames } from './streams/thread-names.js';
import { parseUnloadedModuleList, type UnloadedModule } from './streams/unloaded-module-list.js';

export interface OpenMinidumpOptions {
  signal?: AbortSignal;
  /** Bytes of page cache for structure reads (default 1 MiB). */
  cacheBytes?: number;
  /** The whole file, already read by the caller (file-reader.ts FileReaderOptions.bytes). */
  bytes?: Buffer;
}

/** Structure streams bigger than this are corrupt (a Memory64List of 4M ranges is 64 MiB). */
export const MAX_STREAM_BYTES = 64 * 1024 * 1024;

/**
 * Bytes of strings and CodeView records one dump may make the reader follow (names of modules,
 * threads, handle types…). A real dump needs well under 1 MiB; a hostile one pointing thousands of
 * entries at 64 KiB strings would otherwise turn a small file into gigabytes of text.
 */
export const MAX_REFERENCED_BYTES = 16 * 1024 * 1024;

/** Bytes of a ModuleList that hold MAX_MODULES entries (count, padding, entries). */
const MODULE_LIST_BYTES = 8 + MAX_MODULES * MODULE_ENTRY_SIZE;

function threadListBytes(extended: boolean): number {
  return 8 + MAX_THREADS * (extended ? 64 : 48);
}

export interface MinidumpThread extends DumpThread {
  name?: string;
  /** From ThreadInfoList, when the dump has one. */
  info?: ThreadInfo;
}

export interface MemorySummary extends MemoryMapStats {
  /** Which lists supplied the captured ranges. */
  sources: ('MemoryList' | 'Memory64List')[];
  /** Bytes the Memory64List declares (0 without one). */
  memory64DeclaredBytes: number;
  /** Declared bytes that are not in the file (a truncated dump). */
  missingBytes: number;
}

export interface MemoryInfo {
  regions: MemoryRegion[];
  summary: MemoryInfoSummary;
}

export async function openMinidump(
  file: string | Buffer,
  options: OpenMinidumpOptions = {},
): Promise<Minidump> {
  const reader = await PositionedFileReader.open(file, {
    ...(options.cacheBytes === undefined ? {} : { cacheBytes: options.cacheBytes }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.bytes === undefined ? {} : { bytes: options.bytes }),
  });
  const path = reader.path;
  try {
    const header = parseHeader(path, await reader.read(0, HEADER_SIZE), reader.size);
    const extent = directoryExtent(path, header, reader.size);
    const warnings = new WarningLog();
    const streams = parseDirectory(
      path,
      await reader.read(extent.offset, extent.length),
      reader.size,
      (m) => warnings.add(m),
    );
    return new Minidump(reader, header, streams, warnings);
  } catch (error) {
    await reader.close();
    throw error;
  }
}

export class Minidump {
  readonly path: string;
  readonly fileSize: number;
  readonly header: MinidumpHeader;
  readonly #reader: PositionedFileReader;
  readonly #streams: readonly StreamInfo[];
  readonly #warnings: WarningLog;
  /** What the file references past its end, by what it is (`ModuleList strings`), counted. */
  readonly #pastEnd = new Map<string, number>();
  /** Strings read so far, by RVA (hundreds of entries often share one name). */
  readonly #strings = new Map<number, string>();
  #referencedBytes = 0;
  readonly #cache = new Map<string, Promise<unknown>>();
  /** The address map once built: readMemory's hot path skips a promise hop with it. */
  #map: MemoryMap | undefined;

  /** Use openMinidump(). */
  constructor(
    reader: PositionedFileReader,
    header: MinidumpHeader,
    streams: StreamInfo[],
    warnings: WarningLog,
  ) {
    this.#reader = reader;
    this.path = reader.path;
    this.fileSize = reader.size;
    this.header = header;
    this.#streams = streams;
    this.#warnings = warnings;
  }

  /** Bytes read from the file so far. */
  get bytesRead(): number {
    return this.#reader.bytesRead;
  }

  /** Every non-padding directory entry, in directory order, unknown types included. */
  streams(): StreamInfo[] {
    return this.#streams.map((s) => ({ ...s }));
  }

  /**
   * What was odd about the file so far (grows as streams are parsed); never repeats a line, and
   * bounded: the first few of each kind, then one line saying how many more (warning-log.ts).
   */
  warnings(): string[] {
    return this.#warnings.list();
  }

  /** Adds a warning (callers above the reader: the processor's own findings about this dump). */
  warn(message: string, kind?: string): void {
    this.#warnings.add(message, kind);
  }

  /**
   * What the file references beyond its end, counted by what it is: streams, strings and
   * CodeView records so far (grows as streams are parsed); `notePastEnd` adds the rest.
   */
  pastEnd(): ReadonlyMap<string, number> {
    for (const s of this.#streams) {
      if (s.truncated) this.#pastEnd.set(`${s.name} stream`, 1);
    }
    return this.#pastEnd;
  }

  /** Counts `count` more of `what` past the end of the file (a thread context, memory bytes…). */
  notePastEnd(what: string, count = 1): void {
    this.#pastEnd.set(what, (this.#pastEnd.get(what) ?? 0) + count);
  }

  /** The first directory entry of `type`. */
  stream(type: number): StreamInfo | undefined {
    return this.#streams.find((s) => s.type === type);
  }

  systemInfo(): Promise<SystemInfo | null> {
    return this.#parse(StreamType.SystemInfo, null, (ctx) => parseSystemInfo(ctx));
  }

  miscInfo(): Promise<MiscInfo | null> {
    return this.#parse(StreamType.MiscInfo, null, (ctx) => parseMiscInfo(ctx));
  }

  exception(): Promise<DumpException | null> {
    return this.#parse(StreamType.Exception, null, (ctx) => parseException(ctx));
  }

  /** Breakpad's dump/requesting thread ids, or null without that stream. */
  breakpadInfo(): Promise<BreakpadInfo | null> {
    return this.#parse(StreamType.BreakpadInfo, null, (ctx) => parseBreakpadInfo(ctx));
  }

  modules(): Promise<DumpModule[]> {
    // Only the entries that will be read come off the disk (a 108 MB list of a million is cut).
    return this.#parse(StreamType.ModuleList, [], (ctx) => parseModuleList(ctx), MODULE_LIST_BYTES);
  }

  unloadedModules(): Promise<UnloadedModule[]> {
    return this.#parse(StreamType.UnloadedModuleList, [], (ctx) => parseUnloadedModuleList(ctx));
  }

  handles(): Promise<HandleSummary | null> {
    return this.#parse(StreamType.HandleData, null, (ctx) => parseHandleData(ctx));
  }

  vmCounters(): Promise<ProcessVmCounters | null> {
    return this.#parse(StreamType.ProcessVmCounters, null, (ctx) => parseProcessVmCounters(ctx));
  }

  /** The VirtualQuery map (MemoryInfoList) and its totals, or null without that stream. */
  memoryInfo(): Promise<MemoryInfo | null> {
    return this.#parse(StreamType.MemoryInfoList, null, (ctx) => {
      const regions = parseMemoryInfoList(ctx);
      return { regions, summary: summarizeMemoryInfo(regions) };
    });
  }

  /** Text of every CommentStreamA/W, in directory order. */
  comments(): Promise<string[]> {
    return this.#once('comments', async () => {
      const out: string[] = [];
      for (const info of this.#streams) {
        if (info.type !== StreamType.CommentA && info.type !== StreamType.CommentW) continue;
        const text = await this.#guard(info, '', (ctx) =>
          parseComment(ctx, info.type === StreamType.CommentW),
        );
        if (text !== '') out.push(text);
      }
      return out;
    });
  }

  /** ThreadList (or ThreadExList) joined with thread names and ThreadInfoList by thread id. */
  threads(): Promise<MinidumpThread[]> {
    return this.#once('threads', async () => {
      const extended =
        !this.stream(StreamType.ThreadList) && this.stream(StreamType.ThreadExList) !== undefined;
      const list = extended
        ? await this.#parse(
            StreamType.ThreadExList,
            [],
            (ctx) => parseThreadList(ctx, true),
            threadListBytes(true),
          )
        : await this.#parse(
            StreamType.ThreadList,
            [],
            (ctx) => parseThreadList(ctx, false),
            threadListBytes(false),
          );
      const names = await this.#parse(StreamType.ThreadNames, new Map<number, string>(), (ctx) =>
        parseThreadNames(ctx),
      );
      const infos = await this.#parse(StreamType.ThreadInfoList, [], (ctx) =>
        parseThreadInfoList(ctx),
      );
      const infoById = new Map(infos.map((i) => [i.threadId, i]));
      return list.map((thread) => {
        const merged: MinidumpThread = { ...thread };
        const name = names.get(thread.id);
        if (name !== undefined) merged.name = name;
        const info = infoById.get(thread.id);
        if (info) merged.info = info;
        return merged;
      });
    });
  }

  /** The merged, sorted address map of captured memory. */
  memoryMap(): Promise<MemoryMap> {
    return this.#memory().then((m) => m.map);
  }

  /** Captured ranges (MemoryList and Memory64List merged), sorted by address, overlaps trimmed. */
  async memoryRanges(): Promise<readonly CapturedRange[]> {
    return (await this.memoryMap()).ranges();
  }

  async memorySummary(): Promise<MemorySummary> {
    return (await this.#memory()).summary;
  }

  /**
   * `length` bytes of the target's memory at `address`, read across adjacent captured ranges;
   * a shorter Buffer when the capture ends first, null when `address` itself was not captured.
   */
  async readMemory(address: bigint, length: number): Promise<Buffer | null> {
    if (!Number.isSafeInteger(length) || length < 0) throw new RangeError(`bad length ${length}`);
    if (address < 0n || length === 0) return length === 0 ? Buffer.alloc(0) : null;
    const map = this.#map ?? (await this.#memory()).map;
    const pieces = map.plan(address, length);
    const [only] = pieces;
    if (only === undefined) return null;
    if (pieces.length === 1) {
      const bytes = await this.#reader.read(only.fileOffset, only.length);
      // A small read is a view of a cached page: hand the caller its own copy to scribble on.
      return only.length < this.#reader.pageSize ? Buffer.from(bytes) : bytes;
    }
    const parts = await Promise.all(pieces.map((p) => this.#reader.read(p.fileOffset, p.length)));
    return Buffer.concat(parts);
  }

  /**
   * Bytes of a LOCATION_DESCRIPTOR (file offset + size), e.g. a thread's CONTEXT; shorter when the
   * file ends first.
   */
  readLocation(rva: number, size: number): Promise<Buffer> {
    const length = Math.max(0, Math.min(size, this.fileSize - rva));
    return this.#reader.read(rva, length);
  }

  /** The module whose image holds `address`. */
  async moduleAt(address: bigint): Promise<DumpModule | undefined> {
    return (await this.modules()).find(
      (m) => address >= m.base && address < m.base + BigInt(m.size),
    );
  }

  async close(): Promise<void> {
    await this.#reader.close();
  }

  #memory(): Promise<{ map: MemoryMap; summary: MemorySummary }> {
    return this.#once('memory', async () => {
      const empty: MemoryListResult = {
        ranges: allocRangeColumns(0),
        declaredBytes: 0,
        missingBytes: 0,
      };
      const small = await this.#parse(StreamType.MemoryList, empty, (ctx) => parseMemoryList(ctx));
      const big = await this.#parse(StreamType.Memory64List, empty, (ctx) =>
        parseMemory64List(ctx),
      );
      // MemoryList first: where the two lists overlap, its capture wins.
      const map = MemoryMap.fromColumns([small.ranges, big.ranges]);
      this.#map = map;
      if (map.stats.overlapCount > 0) {
        this.#warnings.add(
          `${map.stats.overlapCount} captured memory range(s) overlap earlier ones (${map.stats.overlapBytes} bytes); the first capture of each address is used`,
        );
      }
      const missingBytes = small.missingBytes + big.missingBytes;
      if (missingBytes > 0) this.notePastEnd('bytes of captured memory', missingBytes);
      const sources: MemorySummary['sources'] = [];
      if (this.stream(StreamType.MemoryList)) sources.push('MemoryList');
      if (this.stream(StreamType.Memory64List)) sources.push('Memory64List');
      return {
        map,
        summary: {
          ...map.stats,
          sources,
          memory64DeclaredBytes: big.declaredBytes,
          missingBytes,
        },
      };
    });
  }

  /** Takes `bytes` from the dump's budget for followed references; false once it is spent. */
  #spend(bytes: number): boolean {
    if (this.#referencedBytes + bytes > MAX_REFERENCED_BYTES) {
      this.#warnings.add(
        `the dump references more than ${MAX_REFERENCED_BYTES} bytes of strings and CodeView records; the rest are not read`,
        'referenced-bytes budget',
      );
      return false;
    }
    this.#referencedBytes += bytes;
    return true;
  }

  #once<T>(key: string, load: () => Promise<T>): Promise<T> {
    let cached = this.#cache.get(key) as Promise<T> | undefined;
    if (!cached) {
      cached = load();
      this.#cache.set(key, cached);
    }
    return cached;
  }

  #parse<T>(
    type: number,
    fallback: T,
    parse: (ctx: StreamContext) => T | Promise<T>,
    maxBytes = MAX_STREAM_BYTES,
  ): Promise<T> {
    return this.#once(`stream:${type}`, () => {
      const info = this.stream(type);
      return info ? this.#guard(info, fallback, parse, maxBytes) : Promise.resolve(fallback);
    });
  }

  /** Runs one stream parser; a malformed stream becomes a warning and `fallback`. */
  async #guard<T>(
    info: StreamInfo,
    fallback: T,
    parse: (ctx: StreamContext) => T | Promise<T>,
    maxBytes = MAX_STREAM_BYTES,
  ): Promise<T> {
    try {
      return await parse(await this.#context(info, maxBytes));
    } catch (error) {
      // I/O failures and aborts are the caller's business; anything else is a malformed stream.
      if (isHarnessError(error) && !(error instanceof BadDumpError)) throw error;
      this.#warnings.add(
        `${info.name}: unreadable (${error instanceof Error ? error.message : String(error)})`,
      );
      return fallback;
    }
  }

  async #context(info: StreamInfo, maxBytes: number): Promise<StreamContext> {
    let length = Math.max(0, Math.min(info.size, this.fileSize - info.rva));
    // A list read only as far as its parser's entry cap: the parser says what it left out.
    if (maxBytes < MAX_STREAM_BYTES) length = Math.min(length, maxBytes);
    if (length > MAX_STREAM_BYTES) {
      this.#warnings.add(
        `${info.name}: ${info.size}-byte stream is implausibly large; only the first ${MAX_STREAM_BYTES} bytes are read`,
      );
      length = MAX_STREAM_BYTES;
    }
    const data = await this.#reader.read(info.rva, length);
    const warn = (message: string, kind?: string) => this.#warnings.add(message, kind);
    const read = (offset: number, n: number) => this.#reader.read(offset, n);
    const pastEnd = (what: string) => this.notePastEnd(`${info.name} ${what}`);
    return {
      file: this.path,
      fileSize: this.fileSize,
      info,
      data,
      warn,
      read,
      pastEnd,
      followReference: (bytes) => this.#spend(bytes),
      readString: async (rva, what) => {
        const known = this.#strings.get(rva);
        if (known !== undefined) return known;
        if (rva !== 0 && rva + 4 > this.fileSize) {
          pastEnd('strings');
          return null;
        }
        const result = await readMinidumpString(read, rva, this.fileSize, (n) => this.#spend(n));
        if (result.ok) {
          this.#strings.set(rva, result.value);
          return result.value;
        }
        if (result.pastEnd === true) pastEnd('strings');
        else warn(`${info.name}: ${what}: ${result.reason}`);
        return null;
      },
    };
  }
}
