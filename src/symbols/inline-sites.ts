// Inlined calls inside one procedure of a PDB module stream: its S_INLINESITE / S_INLINESITE2
// records (parent, end, inlinee id, then "binary annotations", a compressed line program giving
// the code ranges the inlined body occupies and its source line in each), and the module's
// DEBUG_S_INLINEELINES subsection (the inlinee's file and first line, to which the annotations'
// line offsets are added). Layouts: https://llvm.org/docs/PDB/CodeViewSymbols.html (S_INLINESITE),
// LLVM's include/llvm/DebugInfo/CodeView/SymbolRecord.h (BinaryAnnotationIterator: the opcodes,
// CVUncompressData and the signed-operand encoding) and CodeView.h (DEBUG_S_INLINEELINES), and
// microsoft-pdb's cvinfo.h (BinaryAnnotationOpcode). Nothing here throws: a malformed record is a
// `problem` string, and the caller decides what a procedure with one is worth.

export const S_INLINESITE = 0x114d;
export const S_INLINESITE2 = 0x115d;

/** At most this many inline sites per procedure are read (a hostile stream may claim more). */
export const MAX_SITES = 4096;

/** One stretch of code of an inlined body: code offsets from the procedure's start. */
export interface InlineRange {
  start: number;
  end: number;
  /** Added to the inlinee's first line (DEBUG_S_INLINEELINES). */
  lineDelta: number;
  /** A file checksum offset set by ChangeFile; absent: the inlinee's own file. */
  file?: number;
}

export interface InlineSite {
  /** Offset of the record in the module stream (what a nested site's `parent` points at). */
  offset: number;
  parent: number;
  /** Id (IPI stream) of the inlined function: LF_FUNC_ID or LF_MFUNC_ID. */
  inlinee: number;
  ranges: InlineRange[];
}

/** The BinaryAnnotationsOpCode values (cvinfo.h). */
const OP = {
  invalid: 0,
  codeOffset: 1,
  changeCodeOffsetBase: 2,
  changeCodeOffset: 3,
  changeCodeLength: 4,
  changeFile: 5,
  changeLineOffset: 6,
  changeLineEndDelta: 7,
  changeRangeKind: 8,
  changeColumnStart: 9,
  changeColumnEndDelta: 10,
  changeCodeOffsetAndLineOffset: 11,
  changeCodeLengthAndCodeOffset: 12,
  changeColumnEnd: 13,
} as const;

/**
 * The inline sites among symbol records (`records` holds whole records; `base` is the stream
 * offset of its first byte, so `offset` and `parent` compare with the records' own pointers).
 */
export function parseInlineSites(
  records: Buffer,
  base: number,
): { sites: InlineSite[]; problem?: string } {
  const sites: InlineSite[] = [];
  let at = 0;
  while (at + 4 <= records.length) {
    const length = records.readUInt16LE(at);
    const kind = records.readUInt16LE(at + 2);
    const end = at + 2 + length;
    if (length < 2 || end > records.length) {
      return { sites, problem: `a symbol record at offset ${base + at} is cut (length ${length})` };
    }
    if (kind === S_INLINESITE || kind === S_INLINESITE2) {
      const fixed = kind === S_INLINESITE ? 16 : 20;
      if (end < at + fixed) {
        return { sites, problem: `an inline site at offset ${base + at} of ${length} bytes` };
      }
      if (sites.length >= MAX_SITES) {
        return { sites, problem: `more than ${MAX_SITES} inline sites in one procedure` };
      }
      const decoded = decodeAnnotations(records.subarray(at + fixed, end));
      if (decoded.problem !== undefined) {
        return { sites, problem: `inline site at offset ${base + at}: ${decoded.problem}` };
      }
      sites.push({
        offset: base + at,
        parent: records.readUInt32LE(at + 4),
        inlinee: records.readUInt32LE(at + 12),
        ranges: decoded.ranges,
      });
    }
    at = end;
  }
  return { sites };
}

/**
 * The code ranges a site's binary annotations describe. Three opcodes emit a range at the current
 * code offset (ChangeCodeOffset, ChangeCodeOffsetAndLineOffset, ChangeCodeLengthAndCodeOffset); a
 * range without a length runs to the next one emitted, ChangeCodeLength gives the last one its
 * length and moves the offset to its end. A range never closed is dropped (its end is unknown).
 */
export function decodeAnnotations(bytes: Uint8Array): { ranges: InlineRange[]; problem?: string } {
  const ranges: InlineRange[] = [];
  let at = 0;
  const next = (): number | undefined => {
    const b1 = bytes[at];
    if (b1 === undefined) return undefined;
    if ((b1 & 0x80) === 0) {
      at += 1;
      return b1;
    }
    if ((b1 & 0xc0) === 0x80) {
      if (at + 2 > bytes.length) return undefined;
      const value = ((b1 & 0x3f) << 8) | (bytes[at + 1] ?? 0);
      at += 2;
      return value;
    }
    if ((b1 & 0xe0) === 0xc0) {
      if (at + 4 > bytes.length) return undefined;
      const value =
        (b1 & 0x1f) * 0x1000000 +
        ((bytes[at + 1] ?? 0) << 16) +
        ((bytes[at + 2] ?? 0) << 8) +
        (bytes[at + 3] ?? 0);
      at += 4;
      return value;
    }
    return undefined;
  };
  const signed = (value: number): number => (value & 1 ? -(value >>> 1) : value >>> 1);
  let offset = 0;
  let lineDelta = 0;
  let file: number | undefined;
  // The last emitted range whose end is not known yet.
  let open: { start: number; lineDelta: number; file?: number } | undefined;
  const close = (end: number) => {
    if (open !== undefined && end > open.start) {
      ranges.push({
        start: open.start,
        end,
        lineDelta: open.lineDelta,
        ...(open.file === undefined ? {} : { file: open.file }),
      });
    }
    open = undefined;
  };
  const emit = (length?: number) => {
    close(offset);
    if (length === undefined) {
      open = { start: offset, lineDelta, ...(file === undefined ? {} : { file }) };
    } else if (length > 0) {
      ranges.push({
        start: offset,
        end: offset + length,
        lineDelta,
        ...(file === undefined ? {} : { file }),
      });
    }
  };
  while (at < bytes.length) {
    const where = at;
    const op = next();
    // Opcode 0 is padding to the record's 4-byte end: nothing follows.
    if (op === OP.invalid) break;
    const operand = next();
    const bad = (why: string) => ({ ranges, problem: `${why} at annotation byte ${where}` });
    if (op === undefined || operand === undefined) return bad('a cut or invalid compressed number');
    switch (op) {
      case OP.codeOffset:
        offset = operand;
        break;
      case OP.changeCodeOffsetBase:
        // Separated code (a function split in hot and cold parts): not placed here.
        if (operand !== 0) return bad('separated code (ChangeCodeOffsetBase)');
        break;
      case OP.changeCodeOffset:
        offset += operand;
        emit();
        break;
      case OP.changeCodeLength:
        if (open !== undefined) close(open.start + operand);
        offset += operand;
        break;
      case OP.changeFile:
        file = operand;
        break;
      case OP.changeLineOffset:
        lineDelta += signed(operand);
        break;
      case OP.changeCodeOffsetAndLineOffset:
        offset += operand & 0xf;
        lineDelta += signed(operand >>> 4);
        emit();
        break;
      case OP.changeCodeLengthAndCodeOffset: {
        const delta = next();
        if (delta === undefined) return bad('a cut ChangeCodeLengthAndCodeOffset');
        offset += delta;
        emit(operand);
        break;
      }
      case OP.changeLineEndDelta:
      case OP.changeRangeKind:
      case OP.changeColumnStart:
      case OP.changeColumnEndDelta:
      case OP.changeColumnEnd:
        break;
      default:
        return bad(`unknown opcode ${op}`);
    }
    if (offset > 0xffffffff) return bad('a code offset past 4 GiB');
  }
  return { ranges };
}

/** A site active at a code offset, and the range of it that holds the offset. */
export interface ActiveSite {
  site: InlineSite;
  range: InlineRange;
}

/**
 * The inlined calls active at `offset` (from the procedure's start), innermost first: the deepest
 * site whose ranges hold the offset, then its parents (a parent that is no site is the procedure).
 * Every parent on the chain must hold the offset too; when one does not, the records disagree and
 * the chain stops there (no frame is made up).
 */
export function activeChain(sites: readonly InlineSite[], offset: number): ActiveSite[] {
  const byOffset = new Map(sites.map((s) => [s.offset, s]));
  const rangeAt = (site: InlineSite) =>
    site.ranges.find((r) => offset >= r.start && offset < r.end);
  let deepest: ActiveSite[] = [];
  for (const site of sites) {
    const range = rangeAt(site);
    if (range === undefined) continue;
    const chain: ActiveSite[] = [{ site, range }];
    const seen = new Set([site.offset]);
    let parent = byOffset.get(site.parent);
    while (parent !== undefined && !seen.has(parent.offset)) {
      seen.add(parent.offset);
      const parentRange = rangeAt(parent);
      if (parentRange === undefined) break;
      chain.push({ site: parent, range: parentRange });
      parent = byOffset.get(parent.parent);
    }
    // A chain that stopped early (a parent not holding the offset, a cycle) is not trusted.
    if (parent !== undefined) continue;
    if (chain.length > deepest.length) deepest = chain;
  }
  return deepest;
}

/** The first line and file of each inlinee of a module (DEBUG_S_INLINEELINES). */
export interface InlineeSource {
  /** File checksum offset (into the module's DEBUG_S_FILECHKSMS). */
  file: number;
  line: number;
}

/**
 * DEBUG_S_INLINEELINES: a signature (0: plain entries; 1: each entry followed by a count and that
 * many extra file ids), then entries of inlinee id, file checksum offset and first line.
 */
export function parseInlineeLines(bytes: Buffer): {
  inlinees: Map<number, InlineeSource>;
  problem?: string;
} {
  const inlinees = new Map<number, InlineeSource>();
  if (bytes.length < 4) return { inlinees, problem: 'an inlinee-lines subsection of < 4 bytes' };
  const signature = bytes.readUInt32LE(0);
  if (signature !== 0 && signature !== 1) {
    return { inlinees, problem: `inlinee lines of unknown signature ${signature}` };
  }
  let at = 4;
  while (at + 12 <= bytes.length) {
    const inlinee = bytes.readUInt32LE(at);
    inlinees.set(inlinee, { file: bytes.readUInt32LE(at + 4), line: bytes.readUInt32LE(at + 8) });
    at += 12;
    if (signature === 1) {
      if (at + 4 > bytes.length) break;
      at += 4 + 4 * bytes.readUInt32LE(at);
    }
  }
  if (at !== bytes.length) {
    return { inlinees, problem: `inlinee lines cut at byte ${Math.min(at, bytes.length)}` };
  }
  return { inlinees };
}
