// A PDB 7.0 opened for address lookups. Opening reads the superblock, the stream directory, the
// info stream and the DBI stream's small substreams; each lookup then reads only the one module
// stream that owns the address (once, then kept) and, when no procedure covers the address, a few
// public-symbol records. Nothing else of a (possibly huge) PDB is touched.
import { BadSymbolsError } from '../errors.js';
import type { ByteSource } from './byte-source.js';
import { contributionAt, DBI_STREAM, readDbi, type Dbi } from './dbi.js';
import type { InlineLookup, ModuleSymbolFile, SymbolLookup } from './lookup-types.js';
import { inlineFrames } from './pdb-inlines.js';
import {
  lineAt,
  parseC13Lines,
  parseProcs,
  procAt,
  type ModuleSymbols,
  type SectionToRva,
} from './module-stream.js';
import { MsfFile } from './msf.js';
import { PDB_INFO_STREAM, readPdbInfo, StringTable, type PdbInfo } from './pdb-info.js';
import { functionIdName, IPI_STREAM, TPI_STREAM, TypeStream } from './type-stream.js';

/** A module's symbols, or why they could not be read at all. */
interface LoadedModule {
  symbols?: ModuleSymbols;
  problem?: string;
}

/** Warnings kept per file (a hostile PDB may have a broken record in every module). */
const MAX_WARNINGS = 50;
import { PublicsIndex } from './publics.js';

export interface PdbIdentity {
  /** `8-4-4-4-12` lower-case. */
  guid: string;
  /** Age in the info stream and in the DBI header (a CodeView record's age matches the DBI's). */
  infoAge: number;
  dbiAge: number;
  /** Symbol-server key: GUID (32 hex digits) + DBI age in hex. */
  debugId: string;
}

export class PdbFile implements ModuleSymbolFile {
  readonly format = 'pdb';
  readonly name: string;
  readonly identity: PdbIdentity;
  readonly msf: MsfFile;
  readonly #info: PdbInfo;
  readonly #dbi: Dbi;
  readonly #toRva: SectionToRva;
  #names: Promise<StringTable> | undefined;
  #publics: Promise<PublicsIndex> | undefined;
  #idStreams: Promise<{ ids?: TypeStream; types?: TypeStream }> | undefined;
  /** Inlinee names by id (bounded: forgotten all at once when full). */
  readonly #inlineeNames = new Map<number, string | undefined>();
  readonly #modules = new Map<number, Promise<LoadedModule>>();
  /** Malformed parts met while looking up (a module that failed to parse, skipped records). */
  readonly warnings: string[] = [];

  private constructor(name: string, msf: MsfFile, info: PdbInfo, dbi: Dbi) {
    this.name = name;
    this.msf = msf;
    this.#info = info;
    this.#dbi = dbi;
    const rvas = dbi.sectionRvas;
    const toRva = (section: number, offset: number): number | undefined => {
      const base = rvas[section - 1];
      return base === undefined ? undefined : base + offset;
    };
    this.#toRva = toRva;
    const guidKey = info.guid.replace(/-/g, '').toUpperCase();
    this.identity = {
      guid: info.guid,
      infoAge: info.age,
      dbiAge: dbi.header.age,
      debugId: `${guidKey}${dbi.header.age.toString(16).toUpperCase()}`,
    };
  }

  static async open(source: ByteSource, name: string): Promise<PdbFile> {
    const msf = await MsfFile.open(source, name);
    const info = await readPdbInfo(msf);
    const dbi = await readDbi(msf);
    if (dbi.sectionRvas.length === 0) {
      throw new BadSymbolsError(name, `${name}: no section headers in the DBI stream`);
    }
    return new PdbFile(name, msf, info, dbi);
  }

  /**
   * True when this PDB is the one a module's CodeView record names: same GUID, and the record's
   * age equal to the DBI age or the info-stream age (tools disagree on which one they write).
   */
  matches(debugId: string): boolean {
    const id = debugId.toUpperCase();
    const guidKey = this.identity.guid.replace(/-/g, '').toUpperCase();
    if (!id.startsWith(guidKey)) return false;
    const age = Number.parseInt(id.slice(32) || '0', 16);
    return age === this.identity.dbiAge || age === this.identity.infoAge;
  }

  async lookup(rva: number): Promise<SymbolLookup | undefined> {
    const at = this.#sectionOffset(rva);
    let unsure: string | undefined;
    if (at !== undefined) {
      const contribution = contributionAt(this.#dbi.contributions, at.section, at.offset);
      if (contribution !== undefined) {
        const { symbols, problem } = await this.#module(contribution.module);
        const proc = symbols && procAt(symbols.procs, rva);
        if (symbols && proc) {
          const line = lineAt(symbols.lines, rva);
          const partLines = line === undefined ? symbols.linesIncomplete : undefined;
          return {
            function: proc.name,
            functionOffset: rva - proc.rva,
            kind: 'function',
            ...(line?.file === undefined ? {} : { file: line.file }),
            ...(line === undefined ? {} : { line: line.line }),
            ...(partLines === undefined
              ? {}
              : { warning: `${this.#moduleName(contribution.module)}: no line: ${partLines}` }),
          };
        }
        // The module that owns these bytes was read only in part: the nearest public below may
        // be a neighbour (a static function has none), so no name rather than a wrong one.
        const why = problem ?? symbols?.incomplete;
        if (why !== undefined) {
          throw new BadSymbolsError(
            this.name,
            `${this.name}: no name for +0x${rva.toString(16)}: the symbols of ${this.#moduleName(contribution.module)} were read only in part (${why})`,
          );
        }
        // Lines here (or corrupt line tables) but no procedure: the module's records do not
        // agree with its lines, so a public name below is said to be a guess.
        if (symbols !== undefined) {
          const lost =
            symbols.linesIncomplete ??
            (lineAt(symbols.lines, rva) === undefined
              ? undefined
              : 'its lines cover this address but no procedure record does');
          if (lost !== undefined) {
            unsure = `${this.#moduleName(contribution.module)}: ${lost}; the name is the nearest public symbol below, maybe a neighbour's`;
          }
        }
      }
    }
    // The nearest public symbol below names an address only inside the same code section: past
    // the end of .text (in .rdata's strings, say) it would name data as `?foo@@…+0x1f10`.
    const section = at === undefined ? undefined : this.#dbi.sections[at.section - 1];
    if (section === undefined || !section.executable) return undefined;
    if (rva >= section.rva + section.size) return undefined;
    const publics = await this.#publicsIndex();
    const pub = await publics.nearest(rva);
    if (!pub || pub.rva < section.rva) return undefined;
    return {
      function: pub.name,
      functionOffset: rva - pub.rva,
      kind: 'public',
      ...(unsure === undefined ? {} : { warning: unsure }),
    };
  }

  /**
   * Inlined calls active at rva, innermost first (WinDbg's `(Inline Function)` frames), each with
   * its own line there; lookup(rva) gives the procedure, at the outermost call's line. Read only
   * when asked (a frame on a stack): the procedure's inline records are read again, alone. Records
   * that do not parse give a BadSymbolsError that says where (the frame keeps its plain name).
   */
  async inlinesAt(rva: number): Promise<InlineLookup[]> {
    const at = this.#sectionOffset(rva);
    if (at === undefined) return [];
    const contribution = contributionAt(this.#dbi.contributions, at.section, at.offset);
    if (contribution === undefined) return [];
    const { symbols } = await this.#module(contribution.module);
    const proc = symbols && procAt(symbols.procs, rva);
    const span = proc?.inlineRecords;
    const stream = this.#dbi.modules[contribution.module]?.stream;
    if (symbols === undefined || proc === undefined || span === undefined || stream === undefined) {
      return [];
    }
    const where = `${this.name}: ${this.#moduleName(contribution.module)}: ${proc.name}`;
    const records = await this.msf.readStream(stream, span.from, span.to - span.from, where);
    const found = await inlineFrames(
      { records, from: span.from, proc, symbols, name: (id) => this.#inlineeName(id) },
      rva,
    );
    if (found.problem !== undefined) {
      if (found.frames.length === 0) {
        throw new BadSymbolsError(this.name, `${where}: inline frames: ${found.problem}`);
      }
      this.#warn(`${where}: inline frames: ${found.problem}`);
    }
    return found.frames;
  }

  async #inlineeName(id: number): Promise<string | undefined> {
    if (this.#inlineeNames.has(id)) return this.#inlineeNames.get(id);
    this.#idStreams ??= Promise.all([
      TypeStream.open(this.msf, IPI_STREAM),
      TypeStream.open(this.msf, TPI_STREAM),
    ]).then(([ids, types]) => ({
      ...(ids === undefined ? {} : { ids }),
      ...(types === undefined ? {} : { types }),
    }));
    const { ids, types } = await this.#idStreams;
    const name = ids === undefined ? undefined : await functionIdName(ids, types, id);
    if (this.#inlineeNames.size >= 4096) this.#inlineeNames.clear();
    this.#inlineeNames.set(id, name);
    return name;
  }

  /** Section (1-based) and offset of an RVA, by the section headers. */
  #sectionOffset(rva: number): { section: number; offset: number } | undefined {
    const rvas = this.#dbi.sectionRvas;
    let best = -1;
    for (let i = 0; i < rvas.length; i++) {
      const start = rvas[i] ?? 0;
      if (start <= rva && (best === -1 || start >= (rvas[best] ?? 0))) best = i;
    }
    return best === -1 ? undefined : { section: best + 1, offset: rva - (rvas[best] ?? 0) };
  }

  #moduleName(index: number): string {
    return this.#dbi.modules[index]?.name ?? `module ${index}`;
  }

  /** A module's symbols, loaded once; a module that cannot be read says why (and warns once). */
  #module(index: number): Promise<LoadedModule> {
    let loading = this.#modules.get(index);
    if (!loading) {
      loading = this.#loadModule(index).then(
        (symbols): LoadedModule => {
          const why = symbols.incomplete ?? symbols.linesIncomplete;
          if (why !== undefined) this.#warn(`${this.name}: ${this.#moduleName(index)}: ${why}`);
          return { symbols };
        },
        (error: unknown): LoadedModule => {
          const message = error instanceof Error ? error.message : String(error);
          this.#warn(message);
          return { problem: message };
        },
      );
      this.#modules.set(index, loading);
    }
    return loading;
  }

  #warn(message: string): void {
    if (!this.warnings.includes(message) && this.warnings.length < MAX_WARNINGS) {
      this.warnings.push(message);
    }
  }

  async #loadModule(index: number): Promise<ModuleSymbols> {
    const module = this.#dbi.modules[index];
    if (module?.stream === undefined) {
      // No stream, yet bytes of symbols or lines claimed: the stream number was lost, and so
      // were this module's names (the nearest public below would be a neighbour's).
      const claimed = (module?.symBytes ?? 0) + (module?.c13Bytes ?? 0);
      return {
        procs: [],
        lines: emptyLines(),
        skipped: 0,
        ...(claimed === 0
          ? {}
          : {
              incomplete: `no symbol stream, though it claims ${claimed} bytes of symbols and lines`,
            }),
      };
    }
    // A module's symbols live in a stream of their own: one that is the DBI, the info stream or
    // another fixed stream would be read as symbol records (and name addresses after garbage).
    const fixed = this.#fixedStreams().get(module.stream);
    if (fixed !== undefined) {
      throw new BadSymbolsError(
        this.name,
        `${this.name}: ${module.name}: its symbol stream is stream ${module.stream} (${fixed})`,
      );
    }
    const symbols = await this.msf.readStream(
      module.stream,
      0,
      module.symBytes,
      `${module.name} symbols`,
    );
    const { procs, skipped, incomplete } = parseProcs(symbols, this.#toRva);
    let lines = emptyLines();
    let skippedLines = 0;
    let linesIncomplete: string | undefined;
    let inlinees: Pick<ModuleSymbols, 'inlineeLines' | 'fileNames'> = {};
    if (module.c13Bytes > 0) {
      const c13 = await this.msf.readStream(
        module.stream,
        module.symBytes + module.c11Bytes,
        module.c13Bytes,
        `${module.name} line tables`,
      );
      const parsed = parseC13Lines(c13, await this.#stringTable(), this.#toRva);
      lines = parsed.lines;
      skippedLines = parsed.skipped;
      linesIncomplete = parsed.incomplete;
      if (parsed.inlineeLines !== undefined && parsed.fileNames !== undefined) {
        inlinees = { inlineeLines: parsed.inlineeLines, fileNames: parsed.fileNames };
      }
    }
    if (skipped + skippedLines > 0) {
      this.#warn(
        `${this.name}: ${module.name}: ${skipped + skippedLines} malformed records skipped`,
      );
    }
    return {
      procs,
      lines,
      skipped: skipped + skippedLines,
      ...(incomplete === undefined ? {} : { incomplete }),
      ...(linesIncomplete === undefined ? {} : { linesIncomplete }),
      ...inlinees,
    };
  }

  /** Streams with a fixed role (never a module's symbols), by index, with that role. */
  #fixedStreams(): Map<number, string> {
    const header = this.#dbi.header;
    const roles: [number | undefined, string][] = [
      [0, 'the old stream directory'],
      [PDB_INFO_STREAM, 'the PDB info stream'],
      [2, 'the type stream'],
      [DBI_STREAM, 'the DBI stream'],
      [4, 'the id stream'],
      [header.publicStream, 'the publics stream'],
      [header.symRecordStream, 'the symbol record stream'],
      [header.globalStream, 'the globals stream'],
      [this.#dbi.sectionHeaderStream, 'the section headers'],
      [this.#info.namedStreams.get('/names'), 'the /names string table'],
    ];
    const map = new Map<number, string>();
    for (const [stream, role] of roles) {
      if (stream !== undefined && stream !== 0xffff && !map.has(stream)) map.set(stream, role);
    }
    return map;
  }

  #stringTable(): Promise<StringTable> {
    this.#names ??= StringTable.read(this.msf, this.#info.namedStreams.get('/names'));
    return this.#names;
  }

  #publicsIndex(): Promise<PublicsIndex> {
    this.#publics ??= PublicsIndex.open(
      this.msf,
      this.#dbi.header.publicStream,
      this.#dbi.header.symRecordStream,
      this.#toRva,
    );
    return this.#publics;
  }
}

function emptyLines(): ModuleSymbols['lines'] {
  return {
    rvas: new Uint32Array(0),
    ends: new Uint32Array(0),
    lines: new Uint32Array(0),
    files: [],
  };
}
