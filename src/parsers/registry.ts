// Which parser reads the output of which command: the list of every parser's descriptor, the one
// command table everyone uses (the `parse` command, analyze's triage script). cdb commands are
// matched case-insensitively, as cdb reads them; a chain (`a; b; c`) is read by the one parser its
// parts agree on. Adding a parser: export its descriptor from its file and list it here; then
// `npm run generate:schemas` rewrites schemas/parseEnvelope.schema.json.
import { addressSummaryDescriptor } from './address-summary.js';
import { analyzeDescriptor } from './analyze.js';
import { clrStackDescriptor } from './clr-stack.js';
import { debuggerEventDescriptor } from './debugger-event.js';
import type { ParserDescriptor, RecordOf } from './descriptor.js';
import type { ParsedEntry } from './records.js';
import { dumpHeapShortDescriptor } from './dump-heap-short.js';
import { dumpHeapStatDescriptor } from './dump-heap-stat.js';
import { dumpWrittenDescriptor } from './dump-written.js';
import { eeHeapGcDescriptor } from './ee-heap-gc.js';
import { exceptionRecordDescriptor } from './exception-record.js';
import { extensionLoadDescriptor } from './extension-load.js';
import { gcRootDescriptor } from './gc-root.js';
import { heapStatDescriptor } from './heap-stat.js';
import { heapSummaryDescriptor } from './heap-summary.js';
import { lastEventDescriptor } from './last-event.js';
import { modulesDescriptor } from './modules.js';
import { printExceptionDescriptor } from './print-exception.js';
import { sessionEndDescriptor } from './session-end.js';
import { stackDescriptor } from './stack.js';
import { threadListDescriptor } from './thread-list.js';
import { startupDescriptor } from './startup.js';
import { umdhDiffDescriptor } from './umdh.js';
import { umdhLogDescriptor } from './umdh-log.js';
import { unknownDescriptor } from './unknown.js';

/** Every parser, in the order of the record kinds' published list. */
export const PARSERS = [
  heapSummaryDescriptor,
  heapStatDescriptor,
  printExceptionDescriptor,
  clrStackDescriptor,
  debuggerEventDescriptor,
  lastEventDescriptor,
  exceptionRecordDescriptor,
  stackDescriptor,
  modulesDescriptor,
  analyzeDescriptor,
  dumpWrittenDescriptor,
  extensionLoadDescriptor,
  dumpHeapStatDescriptor,
  eeHeapGcDescriptor,
  addressSummaryDescriptor,
  umdhDiffDescriptor,
  umdhLogDescriptor,
  dumpHeapShortDescriptor,
  gcRootDescriptor,
  startupDescriptor,
  sessionEndDescriptor,
  threadListDescriptor,
  unknownDescriptor,
] as const;

type AnyDescriptor = (typeof PARSERS)[number];

/** Record kind -> record type, derived from the descriptors. */
export type RecordByKind = { [D in AnyDescriptor as D['kind']]: RecordOf<D> };

export type RecordKind = keyof RecordByKind;

/** Every record kind, in order. */
export const RECORD_KINDS: readonly RecordKind[] = PARSERS.map((p) => p.kind);

/** The descriptor of one kind. */
export function descriptorOf<K extends RecordKind>(kind: K): ParserDescriptor<K, RecordByKind[K]> {
  // PARSERS holds every RecordKind (RecordKind is derived from it), so `find` always finds.
  return PARSERS.find((p) => p.kind === kind) as ParserDescriptor<K, RecordByKind[K]>;
}

/** The descriptor a command's output goes to (`kind` and `parse` are what callers use). */
export type CommandKind<K extends RecordKind = RecordKind> = ParserDescriptor<K, RecordByKind[K]>;

/** The parser for `command`, or null when no parser knows it (the output is kept raw). */
export function lookupCommand(command: string): CommandKind | null {
  const normalized = command.trim().replace(/\s+/g, ' ');
  if (normalized.length === 0) return null;
  for (const parser of PARSERS) {
    if (parser.commands.some((pattern) => pattern.test(normalized))) {
      return parser;
    }
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

/** The text summary of one envelope entry's record, by its kind's descriptor. */
export function summarize(entry: ParsedEntry): string[] {
  // Widened: the entry's record has its kind's type (ParsedEntry is a union by kind), which a
  // lookup by a run-time kind cannot show the compiler.
  const descriptor: ParserDescriptor = descriptorOf(entry.kind);
  return descriptor.summary(entry.record);
}
