// What a parser says about itself: the record kind it produces, the commands whose output it
// reads, the parse function and a short text summary of its record. Each parser file exports one
// descriptor; src/parsers/registry.ts lists them, and everything that needs "which kinds exist"
// or "which parser reads this command" asks that list (the `parse` command and its --text
// summary, analyze's triage script, RECORD_KINDS, schemas/parseEnvelope.schema.json through
// scripts/generate-envelope-schema.ts). The record's JSON Schema is schemas/<kind>.schema.json.
import type { RecordBase } from './records.js';

export interface ParserDescriptor<K extends string = string, R extends RecordBase = RecordBase> {
  /** The record kind (published API: never renamed). */
  readonly kind: K;
  /**
   * The commands whose output this parser reads, matched against the command with surrounding
   * whitespace trimmed and inner runs collapsed to one space. Empty: no command has this output
   * alone (event banners appear anywhere; `unknown` is what is left).
   */
  readonly commands: readonly RegExp[];
  // Method signatures (not function-typed properties) so that any descriptor is also a
  // ParserDescriptor<string, RecordBase>, the type of a list that holds every kind.
  /** Never throws: lines it cannot place go to the record's `warnings`. */
  parse(text: string, command: string | null): R;
  /** A few lines for people (`cdb-harness parse --text`): counts and the first rows. */
  summary(record: R): string[];
}

/** The record type a descriptor produces. */
export type RecordOf<D> = D extends ParserDescriptor<string, infer R> ? R : never;

/** Identity, so each parser file's descriptor is checked against its own record type. */
export function defineParser<K extends string, R extends RecordBase>(
  descriptor: ParserDescriptor<K, R>,
): ParserDescriptor<K, R> {
  return descriptor;
}

/** How many rows the text summaries show before they stop. */
export const SUMMARY_ROWS = 5;

/**
 * SOS commands come as `!name` or `!sos.name` (cdb, `0:000> !sos.clrstack`) or bare `name`
 * (dotnet-dump analyze, `> clrstack`): the prefix as a regex source.
 */
export const SOS_PREFIX = '(?:!(?:sos\\.)?)?';
