// Which of its two outputs umdh wrote, from the head of a file: a snapshot log (`umdh -p:PID`) or
// a comparison of two logs (`umdh LOG1 LOG2`). It asks the parsers' own line patterns, so every
// layout `parse` reads is told apart here too: before, the newer one-allocation-per-entry log
// (`30 bytes + 30 at 206EDDA8BA0 by BackTraceEDD4EEA6`, umdh/mahdytech-umdh-log-allocation-no-
// symbols.txt) parsed but umdh-diff refused it.
import { COMPARISON_LINE_RES } from './umdh.js';
import { LOG_ALLOCATION_RE, LOG_ENTRY_RE } from './umdh-log.js';

export type UmdhFileKind = 'log' | 'comparison';

/** The kind of the first line that tells; null when neither form appears. */
export function umdhFileKind(head: string): UmdhFileKind | null {
  for (const line of head.split(/\r?\n/)) {
    if (LOG_ENTRY_RE.test(line) || LOG_ALLOCATION_RE.test(line)) return 'log';
    if (COMPARISON_LINE_RES.some((re) => re.test(line))) return 'comparison';
  }
  return null;
}
