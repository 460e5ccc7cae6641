// The watch filter language: one grammar for native and managed exceptions, where ProcDump's -f
// matches substrings of one string only (https://learn.microsoft.com/en-us/sysinternals/downloads/procdump).
//
//   FILTER  := [FIELD ':'] PATTERN
//   FIELD   := code | type | message | module | frame | text      (default: text)
//   PATTERN := glob (`*` any run, `?` one character; case-insensitive; matches the WHOLE value)
//            | /regex/flags (JavaScript syntax; searches anywhere in the value)
//
//   code     the exception code: `0xc0000005`, `c0000005`, a name (`av`, `clr`, `stackoverflow`)
//            or a glob over the 8-digit hex (`e04343*`).
//   type     the CLR exception type; without a namespace the pattern also matches the last part
//            (`NullReferenceException` matches `System.NullReferenceException`).
//   message  the CLR message; for native exceptions the debugger's description.
//   module   the module of any frame on the stack (`raise`, `ntdll`; `.dll`/`.exe` optional).
//   frame    any frame as `module!function` (offsets removed): `frame:*!crash_here`.
//   text     ProcDump's `-f`: a substring (implicit `*…*`) of `CODE.TYPE ("message")`, e.g.
//            `E0434352.System.InvalidOperationException ("boom")`, or of the description.
//
// --include: the exception must match at least one include (when any is given).
// --exclude: an exception matching any exclude is not matched. Excludes win.
import { errorMessage, UsageError } from '../../errors.js';
import { normalizeExceptionCode } from './exception-codes.js';

export type FilterField = 'code' | 'type' | 'message' | 'module' | 'frame' | 'text';

export const FILTER_FIELDS: readonly FilterField[] = [
  'code',
  'type',
  'message',
  'module',
  'frame',
  'text',
];

export interface FilterTerm {
  field: FilterField;
  /** The text the user gave (for `matchedBy` in the log). */
  source: string;
  test(value: string): boolean;
}

/** What a filter can see of one exception. */
export interface FilterSubject {
  code: string | null;
  description: string | null;
  clrType?: string | undefined;
  clrMessage?: string | undefined;
  /** `module!function+0x…` strings, top first. */
  frames: readonly string[];
}

// `/timeout/i`, `/^System\.IO\./`
const REGEX_PATTERN_RE = /^\/(.*)\/([dgimsuvy]*)$/s;
// `type:System.IO.*`, `code:av` (field name, colon, pattern)
const FIELD_PREFIX_RE = /^([a-z]+):(.*)$/s;

function globToRegExp(glob: string, substring: boolean): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(substring ? body : `^${body}$`, 'is');
}

function patternTester(pattern: string, substring: boolean): (value: string) => boolean {
  const regex = REGEX_PATTERN_RE.exec(pattern);
  if (regex !== null) {
    let re: RegExp;
    try {
      // No `g`/`y`: a stateful lastIndex would make the same value match every other time.
      re = new RegExp(regex[1] ?? '', (regex[2] ?? '').replace(/[gy]/g, ''));
    } catch (error) {
      throw new UsageError(`bad regular expression in filter ${pattern}: ${errorMessage(error)}`);
    }
    return (value) => re.test(value);
  }
  const re = globToRegExp(pattern, substring);
  return (value) => re.test(value);
}

/** Parses one --include/--exclude value; throws UsageError with the grammar on bad input. */
export function parseFilter(text: string): FilterTerm {
  const source = text;
  let field: FilterField = 'text';
  let pattern = text;
  const prefixed = FIELD_PREFIX_RE.exec(text);
  if (prefixed?.[1] !== undefined && !REGEX_PATTERN_RE.test(text)) {
    const name = prefixed[1] as FilterField;
    if (!FILTER_FIELDS.includes(name)) {
      throw new UsageError(
        `unknown filter field "${prefixed[1]}" in ${JSON.stringify(text)}; use one of ${FILTER_FIELDS.join(', ')} (e.g. type:System.IO.*, code:0xc0000005, message:/timeout/i)`,
      );
    }
    field = name;
    pattern = prefixed[2] ?? '';
  }
  if (pattern.length === 0) throw new UsageError(`empty pattern in filter ${JSON.stringify(text)}`);
  switch (field) {
    case 'code': {
      const exact = normalizeExceptionCode(pattern);
      if (exact !== null) return { field, source, test: (v) => v === exact };
      if (REGEX_PATTERN_RE.test(pattern))
        return { field, source, test: patternTester(pattern, false) };
      if (!/^(?:0x)?[0-9a-f*?]+$/i.test(pattern)) {
        throw new UsageError(
          `not an exception code or code glob: ${JSON.stringify(pattern)} (e.g. 0xc0000005, av, clr, e04343*)`,
        );
      }
      // A glob over the 8 hex digits, with or without `0x`.
      const glob = patternTester(pattern.replace(/^0x/i, '').toLowerCase(), false);
      return { field, source, test: (v) => glob(v.replace(/^0x/, '')) };
    }
    case 'type': {
      const full = patternTester(pattern, false);
      if (REGEX_PATTERN_RE.test(pattern) || pattern.includes('.'))
        return { field, source, test: full };
      // No namespace given: also match the type's last part (`NullReferenceException`).
      return {
        field,
        source,
        test: (v) => full(v) || full(v.slice(v.lastIndexOf('.') + 1)),
      };
    }
    case 'module': {
      const test = patternTester(pattern, false);
      return { field, source, test: (v) => test(v) || test(v.replace(/\.(?:dll|exe)$/i, '')) };
    }
    case 'message':
    case 'frame':
      return { field, source, test: patternTester(pattern, false) };
    case 'text':
      return { field, source, test: patternTester(pattern, true) };
  }
}

/** The module part of `module!function+0x12` (empty for a bare address). */
export function frameModule(frame: string): string {
  const bang = frame.indexOf('!');
  return bang > 0 ? frame.slice(0, bang) : '';
}

/** `module!function+0x12` → `module!function` (frames are matched without offsets). */
export function frameWithoutOffset(frame: string): string {
  return frame.replace(/\+0x[0-9a-f]+$/i, '').trim();
}

/** ProcDump's exception text: `E0434352.System.InvalidOperationException ("boom")`. */
export function procdumpText(subject: FilterSubject): string {
  const code = (subject.code ?? '').replace(/^0x/, '').toUpperCase();
  let text = subject.clrType !== undefined ? `${code}.${subject.clrType}` : code;
  if (subject.clrMessage !== undefined) text += ` ("${subject.clrMessage}")`;
  return text;
}

/** The values a field offers for one exception (a term matches when any of them does). */
function valuesOf(field: FilterField, subject: FilterSubject): string[] {
  switch (field) {
    case 'code':
      return subject.code === null ? [] : [subject.code];
    case 'type':
      return subject.clrType === undefined ? [] : [subject.clrType];
    case 'message': {
      const values: string[] = [];
      if (subject.clrMessage !== undefined) values.push(subject.clrMessage);
      else if (subject.description !== null) values.push(subject.description);
      return values;
    }
    case 'module':
      return subject.frames.map(frameModule).filter((m) => m.length > 0);
    case 'frame':
      return subject.frames.map(frameWithoutOffset);
    case 'text': {
      const values = [procdumpText(subject)];
      if (subject.description !== null) values.push(subject.description);
      return values;
    }
  }
}

export function termMatches(term: FilterTerm, subject: FilterSubject): boolean {
  return valuesOf(term.field, subject).some((v) => term.test(v));
}

export interface FilterSet {
  include: readonly FilterTerm[];
  exclude: readonly FilterTerm[];
}

export function parseFilterSet(include: readonly string[], exclude: readonly string[]): FilterSet {
  return { include: include.map(parseFilter), exclude: exclude.map(parseFilter) };
}

/** Which filters need CLR details or a stack: without them, identification can stop early. */
export function filterNeeds(set: FilterSet): { clr: boolean; stack: boolean } {
  const all = [...set.include, ...set.exclude];
  return {
    clr: all.some((t) => t.field === 'type' || t.field === 'message' || t.field === 'text'),
    stack: all.some((t) => t.field === 'module' || t.field === 'frame'),
  };
}

export interface FilterDecision {
  matched: boolean;
  /** The include that matched (`*` when there are no includes), or the exclude that vetoed. */
  by: string;
}

export function evaluateFilters(set: FilterSet, subject: FilterSubject): FilterDecision {
  const veto = set.exclude.find((t) => termMatches(t, subject));
  if (veto !== undefined) return { matched: false, by: `exclude ${veto.source}` };
  if (set.include.length === 0) return { matched: true, by: '*' };
  const hit = set.include.find((t) => termMatches(t, subject));
  return hit === undefined
    ? { matched: false, by: 'no include matched' }
    : { matched: true, by: hit.source };
}
