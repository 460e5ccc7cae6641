// Which of its two outputs umdh wrote, from the head of a file: a snapshot log (`umdh -p:PID`) or
// a comparison of two logs (`umdh LOG1 LOG2`). Shapes from the real umdh transcripts that
// test/report/heap-trend/umdh-trend.test.ts reads.

export type UmdhFileKind = 'log' | 'comparison';

// + 2a98c90 ( 2a98c90 -     0)  15cf4 allocs	BackTrace74050
const COMPARISON_LINE_RE = /^[+-]\s*[0-9a-f]+\s*\(\s*[0-9a-f]+\s*-\s*[0-9a-f]+\s*\)/i;
// Total increase ==  27000 requested +    9c0 overhead =  279c0
const COMPARISON_TOTAL_RE = /^\s*Total (?:increase|decrease)\s*==/i;
// 00005320 bytes in 0x14 allocations (@ 0x00000428) by: BackTrace00B53
const LOG_ENTRY_RE = /^\s*[0-9a-f]+ bytes in (?:0x[0-9a-f]+|\d+) allocations \(@/i;

/** The kind of the first line that tells; null when neither form appears. */
export function umdhFileKind(head: string): UmdhFileKind | null {
  for (const line of head.split(/\r?\n/)) {
    if (LOG_ENTRY_RE.test(line)) return 'log';
    if (COMPARISON_LINE_RE.test(line) || COMPARISON_TOTAL_RE.test(line)) return 'comparison';
  }
  return null;
}
