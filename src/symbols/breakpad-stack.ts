// STACK CFI and STACK WIN records of a Breakpad symbol file: the unwind data a stack walker needs
// for code it has no image of (x86 frame-pointer-omitted code above all). Kept as the file spells
// the rules (postfix programs, `.cfa: $esp 4 + .ra: .cfa 4 - ^`); the walker evaluates them.
// Grammar: https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/docs/symbol_files.md
import type { BreakpadIndex } from './breakpad-index.js';
import type { ByteSource } from './byte-source.js';
import { floorIndex } from './module-stream.js';
import { dict } from '../common/dict.js';

/** Longest STACK CFI record (INIT and its deltas) read for one lookup. */
const MAX_CFI_BLOCK = 1 << 20;

export type CfiRuleSet = { cfa: string; ra: string; registers: Record<string, string> };

/**
 * The STACK records of an indexed .sym file, read again from the file when the walker asks
 * (breakpad-index.ts keeps where each one is): one record parsed per question, with the few
 * last answers kept.
 */
export class StackIndex {
  readonly #source: ByteSource;
  readonly #cfi: { keys: Float64Array; order: Uint32Array };
  readonly #win: { keys: Float64Array; order: Uint32Array };
  readonly #index: BreakpadIndex;
  /**
   * The few STACK records read lately, by index row: the promise while the read is under way,
   * then the parsed records themselves, so a walker asking again gets its answer without a
   * promise (cfiRulesAtNow, winAtNow).
   */
  readonly #recentCfi = new Map<number, Promise<StackRecords> | StackRecords>();
  readonly #recentWin = new Map<number, Promise<StackRecords> | StackRecords>();

  constructor(source: ByteSource, index: BreakpadIndex) {
    this.#source = source;
    this.#index = index;
    this.#cfi = index.cfi.sortedBy(0);
    this.#win = index.win.sortedBy(0);
  }

  /** CFI rules in force at rva: INIT rules then every delta up to rva, in order. */
  async cfiAt(rva: number): Promise<{ entry: StackCfiEntry; rules: string[] } | undefined> {
    const records = await this.#records('cfi', rva);
    return records?.cfiAt(rva);
  }

  /** The rules in force at rva as register → postfix expression (StackRecords.cfiRulesAt). */
  async cfiRulesAt(rva: number): Promise<CfiRuleSet | undefined> {
    const records = await this.#records('cfi', rva);
    return records?.cfiRulesAt(rva);
  }

  /** The STACK WIN record covering rva. */
  async winAt(rva: number): Promise<StackWinEntry | undefined> {
    const records = await this.#records('win', rva);
    return records?.winAt(rva);
  }

  /**
   * What cfiRulesAt(rva) answers, when that is known without reading the file (its record was
   * read lately); null when only cfiRulesAt can tell.
   */
  cfiRulesAtNow(rva: number): CfiRuleSet | undefined | null {
    const records = this.#recordsNow('cfi', rva);
    return records === null || records === undefined ? records : records.cfiRulesAt(rva);
  }

  /** What winAt(rva) answers, when known without reading the file; null when not. */
  winAtNow(rva: number): StackWinEntry | undefined | null {
    const records = this.#recordsNow('win', rva);
    return records === null || records === undefined ? records : records.winAt(rva);
  }

  /** The index row of the record covering rva, or -1. */
  #row(kind: 'cfi' | 'win', rva: number): number {
    const sorted = kind === 'cfi' ? this.#cfi : this.#win;
    const at = floorIndex(sorted.keys, rva);
    const row = at < 0 ? undefined : sorted.order[at];
    if (row === undefined) return -1;
    const columns = this.#index[kind];
    return rva >= columns.get(row, 0) + Math.max(columns.get(row, 1), 1) ? -1 : row;
  }

  /** The records covering rva when already parsed, undefined when none covers it, else null. */
  #recordsNow(kind: 'cfi' | 'win', rva: number): StackRecords | undefined | null {
    const row = this.#row(kind, rva);
    if (row < 0) return undefined;
    const hit = (kind === 'cfi' ? this.#recentCfi : this.#recentWin).get(row);
    return hit === undefined || hit instanceof Promise ? null : hit;
  }

  #records(kind: 'cfi' | 'win', rva: number): Promise<StackRecords | undefined> | StackRecords {
    const row = this.#row(kind, rva);
    if (row < 0) return Promise.resolve(undefined);
    const recent = kind === 'cfi' ? this.#recentCfi : this.#recentWin;
    const known = recent.get(row);
    if (known !== undefined) return known;
    const columns = this.#index[kind];
    const start = columns.get(row, 2);
    const end = Math.min(columns.get(row, 3), start + MAX_CFI_BLOCK);
    const hit = this.#source.read(start, end - start).then((bytes) => {
      const records = new StackRecords();
      for (const line of bytes.toString('utf8').split('\n')) {
        const text = line.endsWith('\r') ? line.slice(0, -1) : line;
        if (text.length > 0) records.add(text);
      }
      records.finish();
      // Settled: kept as the records themselves (unless forgotten meanwhile).
      if (recent.get(row) === hit) recent.set(row, records);
      return records;
    });
    if (recent.size >= 64) recent.clear();
    recent.set(row, hit);
    return hit;
  }
}

export interface StackCfiEntry {
  rva: number;
  size: number;
  /** Rules at the start of the range (`STACK CFI INIT`). */
  init: string;
  /** Rule changes at later addresses (`STACK CFI addr rules`), sorted by address. */
  deltas: { rva: number; rules: string }[];
}

export interface StackWinEntry {
  /** 4 = FrameData (program string), 0 = FPO, others as the file says. */
  type: number;
  rva: number;
  codeSize: number;
  prologueSize: number;
  epilogueSize: number;
  parameterSize: number;
  savedRegisterSize: number;
  localSize: number;
  maxStackSize: number;
  /** The postfix program when the record has one. */
  programString?: string;
  /** FPO records without a program: does the function use EBP as a frame pointer? */
  allocatesBasePointer?: boolean;
}

// Sample: "STACK CFI INIT 1690 30 .cfa: $rsp 8 + .ra: .cfa -8 + ^"
const CFI_INIT = /^STACK CFI INIT ([0-9a-fA-F]+) ([0-9a-fA-F]+) (.+)$/;
// Sample: "STACK CFI 1691 .cfa: $rsp 16 +"
const CFI_DELTA = /^STACK CFI ([0-9a-fA-F]+) (.+)$/;
// Sample: "STACK WIN 4 1600 25 4 0 0 0 8 0 1 $T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ = $esp $T0 8 + ="
const WIN = /^STACK WIN ([0-9a-fA-F]+)((?: [0-9a-fA-F]+){8}) ([01]) (.*)$/;

export class StackRecords {
  readonly cfi: StackCfiEntry[] = [];
  readonly win: StackWinEntry[] = [];
  #cfiRvas: number[] = [];
  #winRvas: number[] = [];
  #lastCfi: StackCfiEntry | undefined;

  /** Sorts what parse collected; called once at the end of the file. */
  finish(): void {
    this.cfi.sort((a, b) => a.rva - b.rva);
    for (const entry of this.cfi) entry.deltas.sort((a, b) => a.rva - b.rva);
    this.win.sort((a, b) => a.rva - b.rva);
    this.#cfiRvas = this.cfi.map((c) => c.rva);
    this.#winRvas = this.win.map((w) => w.rva);
    this.#lastCfi = undefined;
  }

  /** CFI rules in force at rva: INIT rules then every delta up to rva, in order. */
  cfiAt(rva: number): { entry: StackCfiEntry; rules: string[] } | undefined {
    const entry = this.cfi[floorIndex(this.#cfiRvas, rva)];
    if (!entry || rva >= entry.rva + entry.size) return undefined;
    const rules = [entry.init, ...entry.deltas.filter((d) => d.rva <= rva).map((d) => d.rules)];
    return { entry, rules };
  }

  /**
   * The rules in force at rva as register → postfix expression (`.cfa`, `.ra`, `$rbx`…): the
   * INIT record's, each later delta overriding the registers it names.
   */
  cfiRulesAt(
    rva: number,
  ): { cfa: string; ra: string; registers: Record<string, string> } | undefined {
    const found = this.cfiAt(rva);
    if (!found) return undefined;
    const rules: Record<string, string> = dict();
    for (const text of found.rules) Object.assign(rules, splitRules(text));
    const { ['.cfa']: cfa, ['.ra']: ra, ...registers } = rules;
    if (cfa === undefined || ra === undefined) return undefined;
    return { cfa, ra, registers };
  }

  /** The STACK WIN record covering rva (the last one that starts at or below it). */
  winAt(rva: number): StackWinEntry | undefined {
    const entry = this.win[floorIndex(this.#winRvas, rva)];
    return entry && rva < entry.rva + Math.max(entry.codeSize, 1) ? entry : undefined;
  }

  /** @internal: parse() hands each STACK line here. */
  add(line: string): boolean {
    const init = CFI_INIT.exec(line);
    if (init) {
      this.#lastCfi = {
        rva: parseInt(init[1] ?? '', 16),
        size: parseInt(init[2] ?? '', 16),
        init: init[3] ?? '',
        deltas: [],
      };
      this.cfi.push(this.#lastCfi);
      return true;
    }
    const delta = CFI_DELTA.exec(line);
    if (delta) {
      if (!this.#lastCfi) return false;
      this.#lastCfi.deltas.push({ rva: parseInt(delta[1] ?? '', 16), rules: delta[2] ?? '' });
      return true;
    }
    const win = WIN.exec(line);
    if (!win) return false;
    const n = (win[2] ?? '')
      .trim()
      .split(' ')
      .map((h) => parseInt(h, 16));
    const hasProgram = win[3] === '1';
    this.win.push({
      type: parseInt(win[1] ?? '', 16),
      rva: n[0] ?? 0,
      codeSize: n[1] ?? 0,
      prologueSize: n[2] ?? 0,
      epilogueSize: n[3] ?? 0,
      parameterSize: n[4] ?? 0,
      savedRegisterSize: n[5] ?? 0,
      localSize: n[6] ?? 0,
      maxStackSize: n[7] ?? 0,
      ...(hasProgram
        ? { programString: win[4] ?? '' }
        : { allocatesBasePointer: (win[4] ?? '0').trim() !== '0' }),
    });
    return true;
  }
}

export function parseStackLine(line: string, records: StackRecords): boolean {
  return records.add(line);
}

/** `.cfa: $rsp 8 + .ra: .cfa -8 + ^` → {'.cfa': '$rsp 8 +', '.ra': '.cfa -8 + ^'}. */
export function splitRules(text: string): Record<string, string> {
  const out: Record<string, string> = dict();
  let register: string | undefined;
  let expression: string[] = [];
  for (const token of text.split(/\s+/)) {
    if (token.length === 0) continue;
    if (token.endsWith(':')) {
      if (register !== undefined) out[register] = expression.join(' ');
      register = token.slice(0, -1);
      expression = [];
    } else {
      expression.push(token);
    }
  }
  if (register !== undefined) out[register] = expression.join(' ');
  return out;
}
