// A reader of the FastSerialization container that `.gcdump` files are written in (PerfView's
// serializer, also in TraceEvent: microsoft/perfview src/FastSerialization/FastSerialization.cs).
// The stream is the string `!FastSerialization.1`, then the entry object; an object is a
// BeginObject tag, its type (a SerializationType object, written once and referred to by its
// stream position afterwards), the fields its ToStream wrote, and an EndObject tag. Numbers are
// little-endian; a string is its UTF-16 length (Int32, -1 for null) then each char in 1-3 bytes
// of UTF-8 (StreamReaderWriter.cs `Write(string)`); stream labels are 4 bytes wide in gcdumps
// (GCHeapDump.cs: `StreamLabelWidth.FourBytes`).
//
// Only what a gcdump needs is here: typed reads with bounds, objects with their type names, no
// forward references (gcdumps written by dotnet-gcdump have none before the graph). Pure: bytes in,
// values out; a short or malformed stream throws BadDumpError naming the file.
import { BadDumpError } from '../../../errors.js';

/** FastSerialization.cs `enum Tags`. */
export const Tag = {
  NullReference: 1,
  ObjectReference: 2,
  ForwardReference: 3,
  BeginObject: 4,
  BeginPrivateObject: 5,
  EndObject: 6,
  ForwardDefinition: 7,
  Byte: 8,
  Int16: 9,
  Int32: 10,
  Int64: 11,
  SkipRegion: 12,
  String: 13,
  Blob: 14,
} as const;

const HEADER = '!FastSerialization.1';

/** The type of an object in the stream (FastSerialization's SerializationType). */
export interface SerializedType {
  fullName: string;
  version: number;
  minimumReaderVersion: number;
}

export class FastSerializationReader {
  pos = 0;
  private readonly view: DataView;
  /** SerializationType objects by the stream position they were written at. */
  private readonly types = new Map<number, SerializedType>();

  constructor(
    readonly bytes: Uint8Array,
    readonly file: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  fail(what: string): never {
    throw new BadDumpError(
      this.file,
      `${this.file} is not a readable .gcdump: ${what} (at byte ${this.pos} of ${this.bytes.length})`,
    );
  }

  need(count: number): void {
    if (count < 0 || this.pos + count > this.bytes.length) this.fail('the file ends early');
  }

  byte(): number {
    this.need(1);
    return this.bytes[this.pos++] ?? 0;
  }

  int32(): number {
    this.need(4);
    const value = this.view.getInt32(this.pos, true);
    this.pos += 4;
    return value;
  }

  /** An Int64 that must fit a double exactly (sizes, counts, ticks). */
  int64(): number {
    const value = this.bigInt64();
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) {
      this.fail(`a 64-bit number out of range (${value})`);
    }
    return Number(value);
  }

  bigInt64(): bigint {
    this.need(8);
    const value = this.view.getBigInt64(this.pos, true);
    this.pos += 8;
    return value;
  }

  float32(): number {
    this.need(4);
    const value = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return value;
  }

  bool(): boolean {
    return this.byte() !== 0;
  }

  /** A count that must be between 0 and `max` (every input bounded). */
  count(what: string, max: number): number {
    const n = this.int32();
    if (n < 0 || n > max) this.fail(`${what} ${n} is out of range`);
    return n;
  }

  string(): string | null {
    const length = this.int32();
    if (length < 0) return null;
    // Each char takes at least one byte: a length past the end is malformed, not a huge alloc.
    this.need(length);
    const units = new Uint16Array(length);
    for (let i = 0; i < length; i++) {
      const b = this.byte();
      if (b < 0x80) units[i] = b;
      else if ((b & 0xe0) === 0xc0) units[i] = ((b & 0x1f) << 6) | (this.byte() & 0x3f);
      else units[i] = ((b & 0x0f) << 12) | ((this.byte() & 0x3f) << 6) | (this.byte() & 0x3f);
    }
    const text = new TextDecoder('utf-16le').decode(units);
    return text;
  }

  tag(): number {
    return this.byte();
  }

  expectTag(tag: number, what: string): void {
    const got = this.tag();
    if (got !== tag) this.fail(`expected ${what} (tag ${tag}), found tag ${got}`);
  }

  /** The stream's header string. */
  header(): void {
    if (this.string() !== HEADER) this.fail(`no ${HEADER} header`);
  }

  /**
   * The start of an object: null, or its type. The caller reads the fields, then `endObject()`.
   */
  beginObject(): SerializedType | null {
    const tag = this.tag();
    if (tag === Tag.NullReference) return null;
    if (tag !== Tag.BeginObject && tag !== Tag.BeginPrivateObject) {
      this.fail(`expected an object, found tag ${tag}`);
    }
    return this.typeRef();
  }

  endObject(what: string): void {
    this.expectTag(Tag.EndObject, `the end of ${what}`);
  }

  /** A SerializationType: written in full the first time, then as a reference to that place. */
  private typeRef(): SerializedType {
    const at = this.pos;
    const tag = this.tag();
    if (tag === Tag.ObjectReference) {
      const label = this.int32();
      const known = this.types.get(label);
      if (known === undefined) this.fail(`a reference to an unknown type at ${label}`);
      return known;
    }
    if (tag !== Tag.BeginObject) this.fail(`expected a type, found tag ${tag}`);
    // The type of a SerializationType is null (FastSerialization.cs CreateTypeForObject).
    this.expectTag(Tag.NullReference, 'the null type of a type');
    const version = this.int32();
    const minimumReaderVersion = this.int32();
    const fullName = this.string() ?? this.fail('a type with no name');
    this.endObject(`type ${fullName}`);
    const type = { fullName, version, minimumReaderVersion };
    this.types.set(at, type);
    return type;
  }
}
