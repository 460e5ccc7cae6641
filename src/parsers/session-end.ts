// The end of a session: cdb `q` (prints `quit:`; ends a live target unless started with -pd),
// `qd` and `.detach` (the target lives on), winedbg `detach` / `quit` (both detach; winedbg-lab §2).
import { dropEcho } from './prompt.js';
import type { SessionEndRecord } from './records.js';
import { splitLines } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';

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
