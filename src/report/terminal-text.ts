// Text from dumps (module, process, thread and file names, exception texts) on its way to a
// terminal. A name holding OSC or CSI sequences once set the terminal's title and colours and
// cleared the screen, and a newline in a file name forged a line of the summary (issue 30, item
// 6). Every control character (C0, DEL, C1) becomes visible text: `\x1b`, `\n`, `\x9b`. Records
// and JSON keep the raw value; only text meant for a terminal goes through here.

import { dict } from '../common/dict.js';

// Sample match: "\x1b]0;pwned\x07" (an OSC that sets the window title); C1 CSI "\x9b2J".
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x1f\x7f-\x9f]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every control character written out as an escape. */
export function escapeControls(text: string): string {
  CONTROLS.lastIndex = 0;
  if (!CONTROLS.test(text)) return text;
  return text.replace(
    CONTROLS,
    (c) => NAMED[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/** A copy of `value` with escapeControls applied to every string in it (keys too). */
export function escapeStrings<T>(value: T): T {
  return walk(value) as T;
}

function walk(value: unknown): unknown {
  if (typeof value === 'string') return escapeControls(value);
  if (Array.isArray(value)) return value.map(walk);
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    // Null prototype: a key `__proto__` from a dump stays a key (src/common/dict.ts).
    const out = dict<unknown>();
    for (const [key, inner] of Object.entries(value)) out[escapeControls(key)] = walk(inner);
    return out;
  }
  return value;
}
