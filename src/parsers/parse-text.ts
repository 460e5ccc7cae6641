// Saved debugger output -> the `parse` envelope (records.ts): one entry per command (split at
// prompt lines), the startup banner before the first prompt, and every event banner in order.
import { findDebuggerEvents } from './debugger-event.js';
import type {
  DebuggerEventRecord,
  Dialect,
  ParseEnvelope,
  ParsedEntry,
  RecordKind,
} from './records.js';
import { lookupChain } from './registry.js';
import type { CommandKind } from './registry.js';
import { sniffCommand } from './sniff-kind.js';
import { startupDescriptor } from './startup.js';
import { splitLog } from './split-log.js';

export interface ParseTextOptions {
  /** The command whose output `text` is, when the text has no prompt lines. */
  command?: string;
  dialect?: Dialect;
}

// A banner is startup output when it has one of the lines only cdb's start prints:
//   Microsoft (R) Windows Debugger Version 10.0.10586.567 AMD64
//   Loading Dump File [C:\…\AppScanGui.DMP]
//   User Mini Dump File with Full Memory: Only application data is available
//   Symbol search path is: srv*      /   Executable search path is:
//   CommandLine: C:\…\ExceptionExample.exe      /   *** wait with pending attach
const STARTUP_MARKER_RE =
  /^\s*(?:\S?Microsoft \(R\) Windows Debugger Version |Loading Dump File \[|(?:User|Kernel)[\w ]{0,80}Dump File\b|Symbol search path is:|Executable search path is:|CommandLine: |\*\*\* wait with pending attach)/m;

export function looksLikeStartup(text: string): boolean {
  return STARTUP_MARKER_RE.test(text);
}

function entry<K extends RecordKind>(
  command: string | null,
  found: CommandKind<K>,
  text: string,
  warnings: string[] = [],
): ParsedEntry {
  return { command, kind: found.kind, record: found.parse(text, command), warnings } as ParsedEntry;
}

function unknown(command: string | null, text: string, warnings: string[] = []): ParsedEntry {
  return { command, kind: 'unknown', record: { raw: text, warnings: [] }, warnings };
}

const STARTUP = startupDescriptor;

/** The entry for `text` as the output of `command` (null: no command known). */
export function entryForOutput(command: string | null, text: string): ParsedEntry {
  const found = command === null ? null : lookupChain(command);
  if (found?.kind === 'startup' || (found === null && looksLikeStartup(text))) {
    // Launch commands (`cdb -z …`, `ntsd -g …`) only give a startup record when the text is one.
    return looksLikeStartup(text) ? entry(command, STARTUP, text) : unknown(command, text);
  }
  if (found) return entry(command, found, text);
  const warnings =
    command !== null && command.length > 0 ? [`no parser for command: ${command}`] : [];
  return unknown(command, text, warnings);
}

/** The entry for the text before the first prompt: a startup banner, or unknown text. */
export function startupOrUnknown(preamble: string): ParsedEntry {
  return looksLikeStartup(preamble) ? entry(null, STARTUP, preamble) : unknown(null, preamble);
}

/**
 * Parses saved debugger output. With prompt lines, every command's output becomes an entry and
 * the text before the first prompt a startup (or unknown) entry; without them, the whole text is
 * the output of `options.command`. Never throws.
 */
export function parseText(text: string, options: ParseTextOptions = {}): ParseEnvelope {
  const { preamble, sections } = splitLog(text, options.dialect);
  const entries: ParsedEntry[] = [];
  const events: DebuggerEventRecord[] = [];
  // Events are read per command output: `.lastevent` / winedbg `info exception` repeat the line
  // of the last event, which answers a query and is not a new stop.
  const collect = (found: ParsedEntry, output: string): void => {
    entries.push(found);
    if (found.kind !== 'lastEvent') {
      for (const event of findDebuggerEvents(output, options.dialect)) events.push(event);
    }
  };
  if (sections.length === 0) {
    // No prompt and no --command: recognise the kind from the content (sniff-kind.ts).
    const sniffed = options.command === undefined ? sniffCommand(text) : null;
    const found = sniffed === null ? null : lookupChain(sniffed);
    collect(
      found === null
        ? entryForOutput(options.command ?? null, text)
        : entry(null, found, text, [`kind recognised from the content (like ${sniffed ?? ''})`]),
      text,
    );
    return { schemaVersion: 1, entries, events };
  }
  if (preamble.trim().length > 0) {
    collect(startupOrUnknown(preamble), preamble);
  }
  for (const section of sections) {
    // A bare prompt with nothing after it (the last line of a session) is no entry.
    if (section.command.length === 0 && section.output.trim().length === 0) continue;
    const command = section.command.length > 0 ? section.command : null;
    collect(entryForOutput(command, section.output), section.output);
  }
  return { schemaVersion: 1, entries, events };
}
