// A PDB 7.0 opened for address lookups. Opening reads the superblock, the stream directory, the
// info stream and the DBI stream's small substreams; each lookup then reads only the one module
// stream that owns the address (once, then kept) and, when no procedure covers the address, a few
// public-symbol records. Nothing else of a (possibly huge) PDB is touched.
import { BadSymbolsError } from '../errors.js';
import type { ByteSource } from './byte-source.js';
import { contributionAt, readDbi, type Dbi } from './dbi.js';
import type { ModuleSymbolFile, SymbolLookup } from './lookup-types.js';
import {
  lineAt,
  parseC13Lines,
  parseProcs,
  procAt,
  type ModuleSymbols,
  type SectionToRva,
} from './module-stream.js';
import { MsfFile } from './msf.js';
import { readPdbInfo, StringTable, type PdbInfo } from './pdb-info.js';
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
  readonly #modules = new Map<number, Promise<ModuleSymbols>>();
  /** Malformed parts met while looking up (a module that failed to parse, skipped records). */
  readonly warnings: string[] = [];

  private constructor(name: string, msf: MsfFile, info: PdbInfo, dbi: Dbi) {
    this.name = name;
    this.msf = msf;
    this.#info = info;
    this.#dbi = dbi;
    const rvas = dbi.sectionRvas;
    this.#toRva = (section, offset) => {
      const base = rvas[section - 1];
      return base === undefined ? undefined : base + offset;
    };
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
    if (at !== undefined) {
      const contribution = contributionAt(this.#dbi.contributions, at.section, at.offset);
      if (contribution !== undefined) {
        const symbols = await this.#module(contribution.module);
        const proc = symbols && procAt(symbols.procs, rva);
        if (symbols && proc) {
          const line = lineAt(symbols.lines, rva);
          return {
            function: proc.name,
            functionOffset: rva - proc.rva,
            kind: 'function',
            ...(line?.file === undefined ? {} : { file: line.file }),
            ...(line === undefined ? {} : { line: line.line }),
          };
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
    return { function: pub.name, functionOffset: rva - pub.rva, kind: 'public' };
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

  #module(index: number): Promise<ModuleSymbols | undefined> {
    let loading = this.#modules.get(index);
    if (!loading) {
      loading = this.#loadModule(index);
      this.#modules.set(index, loading);
    }
    return loading.catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (!this.warnings.includes(message)) this.warnings.push(message);
      return undefined;
    });
  }

  async #loadModule(index: number): Promise<ModuleSymbols> {
    const module = this.#dbi.modules[index];
    if (module?.stream === undefined) {
      return { procs: [], lines: emptyLines(), skipped: 0 };
    }
    const symbols = await this.msf.readStream(
      module.stream,
      0,
      module.symBytes,
      `${module.name} symbols`,
    );
    const { procs, skipped } = parseProcs(symbols, this.#toRva);
    let lines = emptyLines();
    let skippedLines = 0;
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
    }
    if (skipped + skippedLines > 0) {
      this.warnings.push(
        `${this.name}: ${module.name}: ${skipped + skippedLines} malformed records skipped`,
      );
    }
    return { procs, lines, skipped: skipped + skippedLines };
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
