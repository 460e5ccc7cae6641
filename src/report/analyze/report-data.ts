// The dump table of report.html as compact JSON for the page's own script: one array per dump,
// every repeated text (exception names, frames, module lists, signatures) stored once in a string
// table and referred to by index. Crash sets repeat themselves (one app, a few crashes), so 10,000
// dumps stay a few MB where the same table as HTML would not (bench/html-report.ts).
import type { AnalyzeDumpRecord } from './analyze-record.js';
import { engineNote, missingInWords } from './report-words.js';
import { frameText } from './signature.js';

/** Strings by index; index 0 is the empty string (= "none"). */
export class StringTable {
  private readonly ids = new Map<string, number>([['', 0]]);
  readonly strings: string[] = [''];

  id(text: string | undefined | null): number {
    if (text === undefined || text === null || text === '') return 0;
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(text);
      this.ids.set(text, id);
    }
    return id;
  }
}

/**
 * Positions in a dump row. The page script (report-script.ts) reads the same positions: change
 * both together. `s` = string-table index.
 */
export const ROW = {
  file: 0, // string
  status: 1, // 0 ok, 1 failed, 2 quarantined
  code: 2, // s
  name: 3, // s: exception name
  access: 4, // s: "write 0x10"
  address: 5, // string
  bucket: 6, // index into the bucket list, -1 none
  process: 7, // s
  pid: 8, // number, -1 unknown
  kind: 9, // s: full | mini
  size: 10, // number
  time: 11, // string: ISO 8601 or ''
  engine: 12, // s
  ms: 13, // number
  sha: 14, // string: sha256
  frames: 15, // s[]
  faulting: 16, // s: "name version"
  modules: 17, // s: "name version" lines
  moduleCount: 18, // number
  clr: 19, // [s type, s message] or 0
  error: 20, // [s code, string message, string last output] or 0
  registers: 21, // s: "rip=0x… rsp=0x…" or 0
  missing: 22, // s: what the record could not say, in words
  warnings: 23, // s[]
  raw: 24, // [s command, string path][]
  attempts: 25, // number
  thread: 26, // s: faulting thread id
} as const;

export function dumpRow(
  r: AnalyzeDumpRecord,
  strings: StringTable,
  bucketIndex: ReadonlyMap<string, number>,
): unknown[] {
  const row = rowValues(r, strings);
  row[ROW.bucket] = r.bucket ? (bucketIndex.get(r.bucket.id) ?? -1) : -1;
  return row;
}

/** A dump row without its bucket index (the bucket order is known only when the run is done). */
function rowValues(r: AnalyzeDumpRecord, strings: StringTable): unknown[] {
  const row: unknown[] = [];
  const ex = r.exception;
  const faulting = r.modules.faulting;
  const clr = r.clrException?.exceptions[0];
  const registers = ex?.registers;
  // "No function names" is wrong on a stack whose frames have them (symbols found another way).
  const named = r.frames.some((f) => typeof f !== 'string' && f.function !== undefined);
  const missing = missingInWords(
    named ? r.notAvailable.filter((n) => n !== 'frames.symbols') : r.notAvailable,
  );
  row[ROW.file] = r.file;
  row[ROW.status] = r.ok ? 0 : r.quarantined === true ? 2 : 1;
  row[ROW.code] = strings.id(ex?.code);
  row[ROW.name] = strings.id(ex?.name);
  row[ROW.access] = strings.id(
    ex?.accessType === undefined ? '' : `${ex.accessType} ${ex.accessAddress ?? ''}`.trim(),
  );
  row[ROW.address] = ex?.address ?? '';
  row[ROW.bucket] = -1;
  row[ROW.process] = strings.id(r.process.name);
  row[ROW.pid] = r.process.pid ?? -1;
  row[ROW.kind] = strings.id(r.dumpKind);
  row[ROW.size] = r.fileSize ?? r.size;
  row[ROW.time] = r.dumpTimestamp ?? '';
  row[ROW.engine] = strings.id(r.engine);
  row[ROW.ms] = r.timings.totalMs;
  row[ROW.sha] = r.sha256;
  row[ROW.frames] = r.frames
    .slice(0, 64)
    .map((f) =>
      strings.id(
        typeof f === 'string'
          ? f
          : `${f.inline === true ? '(Inline Function) ' : ''}${frameText(f)}${f.trust === undefined || f.trust === 'debugger' ? '' : `  [${f.trust}]`}`,
      ),
    );
  row[ROW.faulting] = strings.id(
    faulting ? `${faulting.name}${faulting.fileVersion ? ` ${faulting.fileVersion}` : ''}` : '',
  );
  row[ROW.modules] = strings.id(
    (r.modules.list ?? [])
      .map((m) => (m.fileVersion === undefined ? m.name : `${m.name} ${m.fileVersion}`))
      .join('\n'),
  );
  row[ROW.moduleCount] = r.modules.count;
  row[ROW.clr] = clr ? [strings.id(clr.type), strings.id(clr.message)] : 0;
  row[ROW.error] = r.error
    ? [strings.id(r.error.code), r.error.message, (r.error.lastOutput ?? []).join('\n')]
    : 0;
  row[ROW.registers] =
    registers === undefined
      ? 0
      : strings.id(
          Object.entries(registers)
            .map(([name, value]) => `${name}=${value}`)
            .join(' '),
        );
  row[ROW.missing] = strings.id(missing === '' ? '' : `${missing} — ${engineNote(r.engine)}`);
  // Breakpad's AssertionInfo is shown with the dump's notes (the row layout stays as it is).
  const notes =
    r.assertion === undefined ? r.warnings : [assertionText(r.assertion), ...r.warnings];
  row[ROW.warnings] = notes.map((w) => strings.id(w));
  row[ROW.raw] = r.rawOutputs.map((o) => [strings.id(o.command), o.path]);
  row[ROW.attempts] = r.attempts;
  row[ROW.thread] = strings.id(ex?.threadId === undefined ? '' : String(ex.threadId));
  return row;
}

// Sample: `["a</script>.dmp"]`
const UNSAFE_IN_SCRIPT = /[<\u2028\u2029]/;

/** JSON that is safe inside `<script type="application/json">`: no `</script>` can close it. */
export function scriptJson(value: unknown): string {
  const json = JSON.stringify(value);
  // Most rows hold none of the three: one scan instead of three replaces.
  if (!UNSAFE_IN_SCRIPT.test(json)) return json;
  return json
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * The dump rows of a run, built as each record is written (the same rows, in the same order, as
 * dumpRow() over records.ndjson read back): the report then needs no second parse of the file.
 * Each row is kept as its JSON text in two parts around the bucket index, which is filled in at
 * the end. Bounded: past `maxBytes` of text it gives up (`overflowed`), frees what it held, and
 * the report is streamed from records.ndjson as before.
 */
export class ReportRows {
  readonly strings = new StringTable();
  #rows: { head: string; bucket: string | undefined; tail: string }[] = [];
  #bytes = 0;
  #overflowed = false;

  constructor(private readonly maxBytes = DEFAULT_ROW_BYTES) {}

  get overflowed(): boolean {
    return this.#overflowed;
  }

  add(record: AnalyzeDumpRecord): void {
    if (this.#overflowed) return;
    const row = rowValues(record, this.strings);
    // One JSON text, cut around a marker in the bucket's place. Nothing before it can hold the
    // marker's text: a path has no NUL, and the other fields before it are numbers and hex.
    row[ROW.bucket] = BUCKET_MARK;
    const json = scriptJson(row);
    const at = json.indexOf(BUCKET_MARK_JSON);
    const head = json.slice(0, at);
    const tail = json.slice(at + BUCKET_MARK_JSON.length);
    this.#bytes += head.length + tail.length;
    if (this.#bytes > this.maxBytes) {
      this.#overflowed = true;
      this.#rows = [];
      return;
    }
    this.#rows.push({ head, bucket: record.bucket?.id, tail });
  }

  /** Each row's JSON text, with its bucket's index in `bucketIndex` (-1 for none). */
  *rowsJson(bucketIndex: ReadonlyMap<string, number>): Generator<string> {
    for (const { head, bucket, tail } of this.#rows) {
      const index = bucket === undefined ? -1 : (bucketIndex.get(bucket) ?? -1);
      yield `${head}${index}${tail}`;
    }
  }
}

const BUCKET_MARK = '\u0000bucket';
const BUCKET_MARK_JSON = JSON.stringify(BUCKET_MARK);

/** Row text held for one report: about 400 bytes a dump, so some 40,000 dumps. */
const DEFAULT_ROW_BYTES = 16 * 1024 * 1024;

/** `assertion (invalid parameter): p != nullptr in memcpy_s at memcpy_s.cpp:48`, what is known. */
export function assertionText(a: NonNullable<AnalyzeDumpRecord['assertion']>): string {
  const where = [
    a.expression === '' ? '' : a.expression,
    a.function === '' ? '' : `in ${a.function}`,
    a.file === '' ? '' : `at ${a.file}${a.line > 0 ? `:${a.line}` : ''}`,
  ]
    .filter((p) => p !== '')
    .join(' ');
  return `assertion (${a.typeName})${where === '' ? '' : `: ${where}`}`;
}
