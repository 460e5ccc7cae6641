// Which parser reads the output of which command. cdb commands are matched case-insensitively,
// as cdb reads them; a chain (`a; b; c`) is read by the one parser its parts agree on.
import { parseAddressSummary } from './address-summary.js';
import { parseAnalyze } from './analyze.js';
import { parseClrStack } from './clr-stack.js';
import { parseDumpHeapStat } from './dump-heap-stat.js';
import { parseDumpWritten } from './dump-written.js';
import { parseEeHeapGc } from './ee-heap-gc.js';
import { parseExceptionRecord } from './exception-record.js';
import { parseExtensionLoad } from './extension-load.js';
import { parseHeapStat } from './heap-stat.js';
import { parseHeapSummary } from './heap-summary.js';
import { parseLastEvent } from './last-event.js';
import { parseModules } from './modules.js';
import { parsePrintException } from './print-exception.js';
import type { RecordByKind, RecordKind } from './records.js';
import { parseSessionEnd } from './session-end.js';
import { parseStack } from './stack.js';
import { parseStartup } from './startup.js';
import { parseUmdhDiff, parseUmdhLog } from './umdh.js';

/** A parser as the registry calls it: the output, and the command when one is known. */
export type KindParser<K extends RecordKind> = (
  text: string,
  command: string | null,
) => RecordByKind[K];

export interface CommandKind<K extends RecordKind = RecordKind> {
  kind: K;
  parse: KindParser<K>;
}

interface Rule<K extends RecordKind = RecordKind> {
  pattern: RegExp;
  kind: K;
  parse: KindParser<K>;
}

function rule<K extends RecordKind>(pattern: RegExp, kind: K, parse: KindParser<K>): Rule {
  return { pattern, kind, parse };
}

// SOS commands come as `!name`, `!sos.name` (cdb) or bare `name` (dotnet-dump analyze).
const SOS = '(?:!(?:sos\\.)?)?';

const RULES: readonly Rule[] = [
  rule(/^!heap\s+-s(?:\s|$)/i, 'heapSummary', (t) => parseHeapSummary(t)),
  rule(/^!heap\s+-stat(?:\s|$)/i, 'heapStat', (t) => parseHeapStat(t)),
  rule(new RegExp(`^${SOS}(?:pe|printexception)(?:\\s|$)`, 'i'), 'printException', (t) =>
    parsePrintException(t),
  ),
  rule(new RegExp(`^${SOS}clrstack(?:\\s|$)`, 'i'), 'clrStack', (t) => parseClrStack(t)),
  rule(new RegExp(`^${SOS}dumpheap\\b.*\\s-stat\\b`, 'i'), 'dumpHeapStat', (t) =>
    parseDumpHeapStat(t),
  ),
  rule(new RegExp(`^${SOS}eeheap\\b.*\\s-gc\\b`, 'i'), 'eeHeapGc', (t) => parseEeHeapGc(t)),
  rule(/^!address\b.*\s-summary\b/i, 'addressSummary', (t) => parseAddressSummary(t)),
  // k, kb 50, kvn, kP, kc, kL; ~*k, ~* kv, ~#kn 50, ~0k, ~~[1a2b]kb; winedbg bt / backtrace
  rule(/^(?:~(?:\*|#|\.|\d+|~\[[0-9a-fx]+\])\s*)?k[bcflnpv]{0,4}(?:\s|$|\()/i, 'stack', (t) =>
    parseStack(t),
  ),
  rule(/^(?:bt|backtrace)(?:\s|$)/, 'stack', (t) => parseStack(t)),
  rule(/^lm\w{0,6}(?:\s|$)/i, 'modules', (t) => parseModules(t)),
  rule(/^info\s+share(?:\s|$)/, 'modules', (t) => parseModules(t)),
  rule(/^\.lastevent(?:\s|$)/i, 'lastEvent', (t) => parseLastEvent(t)),
  rule(/^info\s+exception(?:\s|$)/, 'lastEvent', (t) => parseLastEvent(t)),
  rule(/^\.exr(?:\s|$)/i, 'exceptionRecord', (t) => parseExceptionRecord(t)),
  rule(/^!analyze\b/i, 'analyze', (t) => parseAnalyze(t)),
  rule(/^\.dump(?:\s|$)/i, 'dumpWritten', (t, c) => parseDumpWritten(t, c)),
  rule(/^minidump(?:\s|$)/, 'dumpWritten', (t, c) => parseDumpWritten(t, c)),
  rule(/^\.load(?:by)?(?:\s|$)/i, 'extensionLoad', (t) => parseExtensionLoad(t)),
  rule(/^(?:q|qd|qq|\.detach|detach|quit)$/i, 'sessionEnd', (t, c) => parseSessionEnd(t, c)),
  // umdh: two log files compare; `-p:PID` takes a snapshot (its log is the file it writes).
  rule(/^umdh(?:\.exe)?\s.*-p:/i, 'umdhLog', (t) => parseUmdhLog(t)),
  rule(/^umdh(?:\.exe)?(?:\s|$)/i, 'umdhDiff', (t) => parseUmdhDiff(t)),
  // Starting the debugger itself: what follows is its banner.
  rule(/^(?:cdb|windbg|ntsd|kd|dumpchk)(?:\.exe)?(?:\s|$)/i, 'startup', (t) => parseStartup(t)),
];

/** The parser for `command`, or null when no parser knows it (the output is kept raw). */
export function lookupCommand(command: string): CommandKind | null {
  const normalized = command.trim().replace(/\s+/g, ' ');
  if (normalized.length === 0) return null;
  for (const r of RULES) {
    if (r.pattern.test(normalized)) return { kind: r.kind, parse: r.parse };
  }
  return null;
}

/** The parts of a `;` chain, outside double quotes: `.cxr 0x0055eb18 ; kv` -> two commands. */
export function splitChain(command: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i];
    if (ch === '"') quoted = !quoted;
    else if (ch === ';' && !quoted) {
      parts.push(command.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(command.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

/**
 * For a chain, the one parser that reads its output: the parts that produce output a parser
 * knows must all agree (ending the session with `q` does not count). Null when they disagree;
 * the caller then keeps the text raw.
 */
export function lookupChain(command: string): CommandKind | null {
  const parts = splitChain(command);
  if (parts.length <= 1) return lookupCommand(command);
  const found = parts
    .map((part) => lookupCommand(part))
    .filter((k): k is CommandKind => k !== null && k.kind !== 'sessionEnd');
  const first = found[0];
  if (!first || found.some((k) => k.kind !== first.kind)) return null;
  return first;
}
