// The end of a session: cdb `q` (prints `quit:`; ends a live target unless started with -pd),
// `qd` and `.detach` (the target lives on), winedbg `detach` / `quit` (both leave the target
// running: test/e2e/winedbg-session.test.ts checks it under Wine).
import { defineParser } from './descriptor.js';
import { dropEcho } from './prompt.js';
import { splitLines } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { RecordBase } from './records.js';

export interface SessionEndRecord extends RecordBase {
  detached: boolean;
}

// Lines these commands print: `quit:` (q), `Detached` (.detach, qd)
const KNOWN_RE = /^\s*(?:quit:|Detached|NatVis script unloaded from )/i;
const DETACHED_TEXT_RE = /^\s*Detached\b/im;

/** Commands that detach by their nature; `q` only detaches when the output says so. */
const DETACHING_COMMANDS = /^\s*(?:qd|\.detach|detach|quit)\b/i;

export function parseSessionEnd(text: string, command?: string | null): SessionEndRecord {
  const warnings = createWarningList();
  for (const line of dropEcho(splitLines(text).map((l) => l.trimEnd()))) {
    if (line.trim().length === 0 || KNOWN_RE.test(line)) continue;
    warnings.add(unplaced(line));
  }
  const detached =
    DETACHED_TEXT_RE.test(text) || (command != null && DETACHING_COMMANDS.test(command));
  return { detached, warnings: warnings.list() };
}

export const sessionEndDescriptor = defineParser({
  kind: 'sessionEnd',
  commands: [
    // q, qd, qq, .detach; winedbg: detach, quit
    /^(?:q|qd|qq|\.detach|detach|quit)$/i,
  ],
  parse: (text, command) => parseSessionEnd(text, command),
  summary: (record) => [record.detached ? 'detached' : 'ended'],
});
