// An open minidump: header and directory read eagerly (32 + 12·N bytes), every stream parsed on
// first use and cached, memory read on demand through one merged address map. A stream that
// cannot be parsed becomes a warning and an empty answer; only an unreadable header or directory
// (BadDumpError) or an I/O failure (IoError) is thrown. The streams' shared bookkeeping is in
// dump-streams.ts, the memory lists' merge in captured-memory.ts, the bounds in read-limits.ts.
import { WarningLog } from '../warning-log.js';
import { readCapturedMemory, type CapturedMemory, type MemorySummary } from './captured-memory.js';
import { directoryExtent, parseDirectory, type StreamInfo } from './directory.js';
import { DumpStreams } from './dump-streams.js';
import { HEADER_SIZE, parseHeader, type MinidumpHeader } from './header.js';
import type { MemoryMap } from './memory-map.js';
import { PositionedFileReader } from './file-reader.js';
import { MODULE_LIST_BYTES, threadListBytes } from './read-limits.js';
import { StreamType } from './stream-types.js';
import { parseBreakpadInfo, type BreakpadInfo } from './streams/breakpad-info.js';
import { parseComment } from './streams/comment.js';
import { parseAssertionInfo, type AssertionInfo } from './streams/assertion-info.js';
import { parseException, type DumpException } from './streams/exception.js';
import { parseHandleData, type HandleSummary } from './streams/handle-data.js';
import {
  parseMemoryInfoList,
  summarizeMemoryInfo,
  type MemoryInfoSummary,
  type MemoryRegion,
} from './streams/memory-info-list.js';
import type { CapturedRange } from './streams/memory-lists.js';
import { parseMiscInfo, type MiscInfo } from './streams/misc-info.js';
import { parseModuleList, type DumpModule } from './streams/module-list.js';
import { parseProcessVmCounters, type ProcessVmCounters } from './streams/process-vm-counters.js';
import { parseSystemInfo, type SystemInfo } from './streams/system-info.js';
import { parseThreadInfoList, type ThreadInfo } from './streams/thread-info-list.js';
import { parseThreadList, type DumpThread } from './streams/thread-list.js';
import { parseThreadNames } from './streams/thread-names.js';
import { parseUnloadedModuleList, type UnloadedModule } from './streams/unloaded-module-list.js';

export { MAX_REFERENCED_BYTES, MAX_STREAM_BYTES } from './read-limits.js';
export type { MemorySummary } from './captured-memory.js';

export interface OpenMinidumpOptions {
  signal?: AbortSignal;
  /** Bytes of page cache for structure reads (default 1 MiB). */
  cacheBytes?: number;
  /** The whole file, already read by the caller (file-reader.ts FileReaderOptions.bytes). */
  bytes?: Buffer;
}

export interface MinidumpThread extends DumpThread {
  name?: string;
  /** From ThreadInfoList, when the dump has one. */
  info?: ThreadInfo;
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
  readonly #streams: DumpStreams;
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
    this.#streams = new DumpStreams(reader, streams, warnings);
  }

  /** Bytes read from the file so far. */
  get bytesRead(): number {
    return this.#reader.bytesRead;
  }

  /** Every non-padding directory entry, in directory order, unknown types included. */
  streams(): StreamInfo[] {
    return this.#streams.list();
  }

  /**
   * What was odd about the file so far (grows as streams are parsed); never repeats a line, and
   * bounded: the first few of each kind, then one line saying how many more (warning-log.ts).
   */
  warnings(): string[] {
    return this.#streams.warnings();
  }

  /** Adds a warning (callers above the reader: the processor's own findings about this dump). */
  warn(message: string, kind?: string): void {
    this.#streams.warn(message, kind);
  }

  /**
   * What the file references beyond its end, counted by what it is: streams, strings and
   * CodeView records so far (grows as streams are parsed); `notePastEnd` adds the rest.
   */
  pastEnd(): ReadonlyMap<string, number> {
    return this.#streams.pastEnd();
  }

  /** Counts `count` more of `what` past the end of the file (a thread context, memory bytes…). */
  notePastEnd(what: string, count = 1): void {
    this.#streams.notePastEnd(what, count);
  }

  /** The first directory entry of `type`. */
  stream(type: number): StreamInfo | undefined {
    return this.#streams.find(type);
  }

  systemInfo(): Promise<SystemInfo | null> {
    return this.#streams.parse(StreamType.SystemInfo, null, (ctx) => parseSystemInfo(ctx));
  }

  miscInfo(): Promise<MiscInfo | null> {
    return this.#streams.parse(StreamType.MiscInfo, null, (ctx) => parseMiscInfo(ctx));
  }

  exception(): Promise<DumpException | null> {
    return this.#streams.parse(StreamType.Exception, null, (ctx) => parseException(ctx));
  }

  /** Breakpad's dump/requesting thread ids, or null without that stream. */
  breakpadInfo(): Promise<BreakpadInfo | null> {
    return this.#streams.parse(StreamType.BreakpadInfo, null, (ctx) => parseBreakpadInfo(ctx));
  }

  /** Breakpad's assertion record (invalid parameter, pure virtual call), or null without one. */
  assertionInfo(): Promise<AssertionInfo | null> {
    return this.#streams.parse(StreamType.BreakpadAssertionInfo, null, (ctx) =>
      parseAssertionInfo(ctx),
    );
  }

  modules(): Promise<DumpModule[]> {
    // Only the entries that will be read come off the disk (a 108 MB list of a million is cut).
    return this.#streams.parse(
      StreamType.ModuleList,
      [],
      (ctx) => parseModuleList(ctx),
      MODULE_LIST_BYTES,
    );
  }

  unloadedModules(): Promise<UnloadedModule[]> {
    return this.#streams.parse(StreamType.UnloadedModuleList, [], (ctx) =>
      parseUnloadedModuleList(ctx),
    );
  }

  handles(): Promise<HandleSummary | null> {
    return this.#streams.parse(StreamType.HandleData, null, (ctx) => parseHandleData(ctx));
  }

  vmCounters(): Promise<ProcessVmCounters | null> {
    return this.#streams.parse(StreamType.ProcessVmCounters, null, (ctx) =>
      parseProcessVmCounters(ctx),
    );
  }

  /** The VirtualQuery map (MemoryInfoList) and its totals, or null without that stream. */
  memoryInfo(): Promise<MemoryInfo | null> {
    return this.#streams.parse(StreamType.MemoryInfoList, null, (ctx) => {
      const regions = parseMemoryInfoList(ctx);
      return { regions, summary: summarizeMemoryInfo(regions) };
    });
  }

  /** Text of every CommentStreamA/W, in directory order. */
  comments(): Promise<string[]> {
    return this.#streams.once('comments', async () => {
      const out: string[] = [];
      for (const info of this.#streams.list()) {
        if (info.type !== StreamType.CommentA && info.type !== StreamType.CommentW) continue;
        const text = await this.#streams.guard(info, '', (ctx) =>
          parseComment(ctx, info.type === StreamType.CommentW),
        );
        if (text !== '') out.push(text);
      }
      return out;
    });
  }

  /** ThreadList (or ThreadExList) joined with thread names and ThreadInfoList by thread id. */
  threads(): Promise<MinidumpThread[]> {
    return this.#streams.once('threads', async () => {
      const extended =
        !this.stream(StreamType.ThreadList) && this.stream(StreamType.ThreadExList) !== undefined;
      const list = await this.#streams.parse(
        extended ? StreamType.ThreadExList : StreamType.ThreadList,
        [],
        (ctx) => parseThreadList(ctx, extended),
        threadListBytes(extended),
      );
      const names = await this.#streams.parse(
        StreamType.ThreadNames,
        new Map<number, string>(),
        (ctx) => parseThreadNames(ctx),
      );
      const infos = await this.#streams.parse(StreamType.ThreadInfoList, [], (ctx) =>
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

  /**
   * What readLocation() would answer, without a promise, when the dump is held in memory
   * (PositionedFileReader.heldBytes); undefined otherwise. For a location inside the file.
   */
  readLocationNow(rva: number, size: number): Buffer | undefined {
    const held = this.#reader.heldBytes();
    if (held === undefined || rva < 0 || size <= 0 || rva + size > held.length) return undefined;
    return held.subarray(rva, rva + size);
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

  #memory(): Promise<CapturedMemory> {
    return this.#streams.once('memory', async () => {
      const memory = await readCapturedMemory(this.#streams);
      this.#map = memory.map;
      return memory;
    });
  }
}
