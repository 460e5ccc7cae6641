// The top-level members of one JSON object, as the raw JSON text of each value, found without
// parsing the values: `query` reads a few members of each record line (file, bucket, exception,
// frames) and JSON.parse of a whole 3 KB record cost more than the rest of the search together
// (bench/query.ts: 100,000 records, 1.3 s CPU to parse them all, 0.5 s to find their members).
// Strings are skipped with indexOf (a quote is a string's end unless an odd run of backslashes
// precedes it, RFC 8259 section 7); only the characters between strings are looked at one by
// one, and in a record written by JSON.stringify those are few.
//
// The walk checks the object's own structure (its quotes and brackets close, each member has a
// key, a colon and a value, commas between members), so a torn line is refused; the values it
// returns are checked by whoever parses them. A value no one asks for is checked no further than
// its strings and brackets: a record edited by hand inside such a member still reads.
//
// A whole line written by JSON.stringify is first read by one regular expression
// (member-pattern.ts), twice as fast; the walk reads what the pattern cannot tell.
import { patternMembers } from './member-pattern.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
/** The name of every member that is not wanted (a plain key is never compared once known). */
const UNWANTED = '\0unwanted';

/**
 * The members named in `wanted` of the JSON object in `text` between `start` and `end`, as their
 * values' JSON text, or undefined when the text is not one whole object (torn, not JSON). A
 * member given twice keeps its last value, as JSON.parse does.
 */
export function jsonMembers(
  text: string,
  start: number,
  end: number,
  wanted: readonly string[],
): Map<string, string> | undefined {
  const found = start === 0 && end === text.length ? patternMembers(text, wanted) : null;
  return found?.members ?? walkMembers(text, start, end, wanted);
}

/** jsonMembers by the walk over each character between strings, whatever the line holds. */
export function walkMembers(
  text: string,
  start: number,
  end: number,
  wanted: readonly string[],
): Map<string, string> | undefined {
  let at = skipSpace(text, start, end);
  if (text.charCodeAt(at) !== OPEN_BRACE) return undefined;
  const found = new Map<string, string>();
  /** Brackets open at `at`: 1 inside the object itself. */
  let depth = 0;
  /** The member being read (at depth 1) and where its value starts; -1 before its colon. */
  let key: string | undefined;
  let valueStart = -1;
  let expectKey = false;
  /** Members read before the current one. */
  let members = 0;
  for (; at < end; at++) {
    const c = text.charCodeAt(at);
    if (c === QUOTE) {
      const close = stringEnd(text, at, end);
      if (close < 0) return undefined;
      if (depth === 1 && expectKey) {
        key = memberName(text, at, close, wanted);
        if (key === undefined) return undefined;
        expectKey = false;
        valueStart = -1;
      }
      at = close;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth === 1) expectKey = true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 1) {
        // `{}` has no member; `{"a":1,}` lacks one; otherwise the last member ends here.
        if (key === undefined && members > 0) return undefined;
        if (key !== undefined && !keep(found, wanted, key, text, valueStart, at)) return undefined;
        return skipSpace(text, at + 1, end) === end ? found : undefined;
      }
      depth--;
    } else if (depth === 1) {
      if (c === COLON) {
        if (key === undefined || expectKey || valueStart >= 0) return undefined;
        valueStart = at + 1;
      } else if (c === COMMA) {
        if (key === undefined || !keep(found, wanted, key, text, valueStart, at)) return undefined;
        members++;
        key = undefined;
        expectKey = true;
      }
    }
  }
  return undefined;
}

/** Keeps a member's value when wanted; false when the member had no colon or no value. */
function keep(
  found: Map<string, string>,
  wanted: readonly string[],
  key: string,
  text: string,
  valueStart: number,
  valueEnd: number,
): boolean {
  if (valueStart < 0) return false;
  if (key === UNWANTED || !wanted.includes(key)) return true;
  const value = text.slice(valueStart, valueEnd).trim();
  if (value === '') return false;
  found.set(key, value);
  return true;
}

/**
 * The name of the member whose quoted key runs from `open` to `close` (its quotes), or UNWANTED
 * for a plain name that is not wanted: most members are not, and a string made of each name
 * cost more than the rest of the walk.
 */
function memberName(
  text: string,
  open: number,
  close: number,
  wanted: readonly string[],
): string | undefined {
  const length = close - open - 1;
  for (const name of wanted) {
    if (name.length === length && text.startsWith(name, open + 1)) return name;
  }
  let escaped = false;
  for (let at = open + 1; at < close && !escaped; at++) escaped = text.charCodeAt(at) === BACKSLASH;
  if (!escaped) return UNWANTED;
  try {
    return JSON.parse(text.slice(open, close + 1)) as string;
  } catch {
    return undefined;
  }
}

/** The index of the quote that ends the string opened at `open`, or -1 before `end`. */
function stringEnd(text: string, open: number, end: number): number {
  for (let close = text.indexOf('"', open + 1); close >= 0 && close < end;) {
    let escapes = 0;
    while (text.charCodeAt(close - 1 - escapes) === BACKSLASH) escapes++;
    if (escapes % 2 === 0) return close;
    close = text.indexOf('"', close + 1);
  }
  return -1;
}

/** The first index from `at` that is not JSON white space (RFC 8259 section 2), or `end`. */
function skipSpace(text: string, at: number, end: number): number {
  while (at < end) {
    const c = text.charCodeAt(at);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return at;
    at++;
  }
  return end;
}
