// Counts what a nettrace (NetTrace V5) event stream carries, as it arrives: blocks by kind, bytes,
// and the events inside EventBlocks, read from their (compressed) headers. It decodes no payload,
// no metadata and no stack: it is the framing a TypeScript client of the diagnostics channel would
// need first, measured against cdbh-diag (TraceEvent) in bench/dotnet-diag-clients.ts.
//
// The format: microsoft/perfview documentation/TraceEvent/NetTraceFormat.md (V5) and TraceEvent's
// reader (src/TraceEvent/EventPipe/EventPipeEventSource.cs, ReadEventHeader). The stream is
// "Nettrace", a FastSerialization header (`!FastSerialization.1`), then objects: tag 5
// (BeginPrivateObject), a type (tag 5, tag 1, int32 version, int32 minimum reader version, int32
// name length, name, tag 6), the object's bytes, tag 6 (EndObject); tag 1 (NullReference) ends it.
// The Trace object is 48 bytes; a block is int32 size, padding to a multiple of 4 from the
// stream's start, then its bytes. Pure: bytes in, counts out.

export interface NettraceCounts {
  /** Blocks by type name: `EventBlock`, `MetadataBlock`, `StackBlock`, `SPBlock`. */
  blocks: Record<string, number>;
  /** Events in EventBlocks (metadata definitions not counted). */
  events: number;
  bytes: number;
  /** The stream's end object was read. */
  ended: boolean;
}

/** A stream that is not nettrace V5, or a block that does not parse. */
export class NettraceFormatError extends Error {}

const MAGIC = 'Nettrace';
const SERIALIZATION = '!FastSerialization.1';
const TAG_NULL = 1;
const TAG_BEGIN = 5;
const TAG_END = 6;
const TRACE_OBJECT_BYTES = 48;
/** A block larger than this is corrupt (the runtime's blocks are at most some 100 KB). */
const MAX_BLOCK_BYTES = 64 * 1024 * 1024;
const MAX_NAME = 64;

// EventBlock header flags and compressed event header flags (NetTraceFormat.md, V5).
const BLOCK_COMPRESSED = 1;
const H_METADATA_ID = 1;
const H_CAPTURE_THREAD_AND_SEQUENCE = 2;
const H_THREAD_ID = 4;
const H_STACK_ID = 8;
const H_ACTIVITY_ID = 16;
const H_RELATED_ACTIVITY_ID = 32;
const H_DATA_LENGTH = 128;

export class NettraceCounter {
  readonly counts: NettraceCounts = { blocks: {}, events: 0, bytes: 0, ended: false };
  private buffer: Buffer = Buffer.alloc(0);
  /** Stream offset of buffer[0] (blocks align to 4 from the stream's start). */
  private base = 0;
  private headerRead = false;

  /** Takes the next bytes of the stream; counts every whole object they complete. */
  push(chunk: Buffer): void {
    this.counts.bytes += chunk.length;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const used = this.headerRead ? this.object() : this.header();
      if (used === 0) return;
      this.buffer = this.buffer.subarray(used);
      this.base += used;
    }
  }

  private header(): number {
    const need = MAGIC.length + 4 + SERIALIZATION.length;
    if (this.buffer.length < need) return 0;
    const magic = this.buffer.toString('latin1', 0, MAGIC.length);
    const length = this.buffer.readInt32LE(MAGIC.length);
    const name = this.buffer.toString('latin1', MAGIC.length + 4, need);
    if (magic !== MAGIC || length !== SERIALIZATION.length || name !== SERIALIZATION) {
      throw new NettraceFormatError(`not a nettrace stream (starts ${JSON.stringify(magic)})`);
    }
    this.headerRead = true;
    return need;
  }

  /** One whole object from the buffer's start: its byte count, or 0 when more is needed. */
  private object(): number {
    const b = this.buffer;
    if (this.counts.ended || b.length < 1) return 0;
    if (b[0] === TAG_NULL) {
      this.counts.ended = true;
      return 1;
    }
    // tag, tag, tag, version, min version, name length
    if (b.length < 15) return 0;
    if (b[0] !== TAG_BEGIN || b[1] !== TAG_BEGIN || b[2] !== TAG_NULL) {
      throw new NettraceFormatError(`bad object tags at stream offset ${this.base}`);
    }
    const nameLength = b.readInt32LE(11);
    if (nameLength <= 0 || nameLength > MAX_NAME) {
      throw new NettraceFormatError(`bad type name length ${nameLength}`);
    }
    let at = 15 + nameLength;
    if (b.length < at + 1) return 0;
    const name = b.toString('latin1', 15, at);
    if (b[at] !== TAG_END) throw new NettraceFormatError(`type ${name} not closed`);
    at += 1;
    let body: Buffer;
    if (name === 'Trace') {
      if (b.length < at + TRACE_OBJECT_BYTES + 1) return 0;
      body = b.subarray(at, at + TRACE_OBJECT_BYTES);
      at += TRACE_OBJECT_BYTES;
    } else {
      if (b.length < at + 4) return 0;
      const size = b.readInt32LE(at);
      if (size < 0 || size > MAX_BLOCK_BYTES)
        throw new NettraceFormatError(`bad ${name} size ${size}`);
      at += 4;
      at += (4 - ((this.base + at) % 4)) % 4;
      if (b.length < at + size + 1) return 0;
      body = b.subarray(at, at + size);
      at += size;
    }
    if (b[at] !== TAG_END) throw new NettraceFormatError(`${name} not closed`);
    this.counts.blocks[name] = (this.counts.blocks[name] ?? 0) + 1;
    if (name === 'EventBlock') this.counts.events += countEvents(body);
    return at + 1;
  }
}

/** The events of one EventBlock (or MetadataBlock), read header by header. */
export function countEvents(block: Buffer): number {
  if (block.length < 4) throw new NettraceFormatError('EventBlock too short');
  const headerSize = block.readUInt16LE(0);
  const compressed = (block.readUInt16LE(2) & BLOCK_COMPRESSED) !== 0;
  let at = headerSize;
  let events = 0;
  let payloadSize = 0;
  const varint = (): number => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = block[at++];
      if (byte === undefined || shift > 63) throw new NettraceFormatError('varint past the block');
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
      shift += 7;
    }
  };
  while (at < block.length) {
    if (compressed) {
      const flags = block[at++] ?? 0;
      if ((flags & H_METADATA_ID) !== 0) varint();
      if ((flags & H_CAPTURE_THREAD_AND_SEQUENCE) !== 0) {
        varint();
        varint();
        varint();
      }
      if ((flags & H_THREAD_ID) !== 0) varint();
      if ((flags & H_STACK_ID) !== 0) varint();
      varint(); // timestamp delta
      if ((flags & H_ACTIVITY_ID) !== 0) at += 16;
      if ((flags & H_RELATED_ACTIVITY_ID) !== 0) at += 16;
      if ((flags & H_DATA_LENGTH) !== 0) payloadSize = varint();
      at += payloadSize;
    } else {
      // int32 size (of the rest of the header and payload), then the fixed V4 header; 4-aligned.
      if (at + 4 > block.length) throw new NettraceFormatError('event header past the block');
      at += 4 + block.readInt32LE(at);
      at += (4 - (at % 4)) % 4;
    }
    if (at > block.length) throw new NettraceFormatError('event past the block');
    events++;
  }
  return events;
}
