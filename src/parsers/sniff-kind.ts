// Which command printed a piece of output, recognised from its content alone: for text saved with
// no prompt line and given with no --command (a umdh diff redirected to a file, `!heap -s` pasted
// from a ticket). Returns a representative command for the registry, never a guess from one weak
// line: every kind needs a line only that command prints (a column header, a banner, a field
// name). Checked in order: kinds whose output embeds another's (the STACK_TEXT of `!analyze -v`
// holds k frames) come first. The sample lines below are from the transcripts under
// test/fixtures/transcripts/ (sources in their headers and INDEX.md), winedbg's from
// test/parsers/fixtures/winedbg/.

interface Sniff {
  command: string;
  /** Each alternative is one line-anchored regex; any one match recognises the kind. */
  any: readonly RegExp[];
  /** Or: at least `count` lines matching `pattern`. */
  many?: { pattern: RegExp; count: number };
}

const SNIFFS: readonly Sniff[] = [
  {
    command: '!analyze -v',
    any: [
      // *                        Exception Analysis                                   *
      /^\*\s+Exception Analysis\s+\*\s*$/m,
      // FAILURE_BUCKET_ID:  WRONG_SYMBOLS_80000003_js-dbg-32-dm-windows-62f79d676e0e.exe!js::GetBytecodeLength
      /^FAILURE_BUCKET_ID:\s+\S/m,
      // DEFAULT_BUCKET_ID: CLR_EXCEPTION        (an excerpt without the banner)
      // PRIMARY_PROBLEM_CLASS: CLR_EXCEPTION
      /^(?:DEFAULT_BUCKET_ID|PRIMARY_PROBLEM_CLASS|BUGCHECK_STR):\s+\S/m,
    ],
  },
  {
    command: 'umdh log1 log2',
    any: [
      // + 2a98c90 ( 2a98c90 -     0)  15cf4 allocs	BackTrace74050
      /^[+-]\s*[0-9a-f]+\s+\(\s*[0-9a-f]+\s+-\s+[0-9a-f]+\)\s+[0-9a-f]+\s+allocs\s+BackTrace\w+/im,
      // Total increase ==  27000 requested +    9c0 overhead =  279c0
      /^\s*Total (?:increase|decrease)\s*==\s*[0-9a-f]+/im,
    ],
  },
  {
    command: 'umdh -p:PID',
    any: [
      // 00005320 bytes in 0x14 allocations (@ 0x00000428) by: BackTrace00B53
      /^\s*[0-9a-f]+ bytes in (?:0x[0-9a-f]+|\d+) allocations \(@ 0x[0-9a-f]+\) by:\s*BackTrace\w+/im,
    ],
  },
  {
    command: '!pe',
    any: [
      // Exception object: 02af41a4
      /^Exception object:\s+[0-9a-f`]+/im,
      // There is no current managed exception on this thread
      /^\s*There is no current managed exception on this thread/im,
    ],
  },
  {
    command: '!clrstack',
    any: [
      // OS Thread Id: 0x23f0 (0)
      /^\s*OS Thread Id:\s*0x[0-9a-f]+/im,
    ],
  },
  {
    command: '!dumpheap -stat',
    any: [
      //       MT    Count    TotalSize Class Name
      /^\s*MT\s+Count\s+TotalSize\s+Class Name\s*$/im,
    ],
  },
  {
    command: '!eeheap -gc',
    any: [
      // Number of GC Heaps: 12
      /^\s*Number of GC Heaps:\s*\d+/im,
      // generation 0 starts at 0x00000218F34C9DB0
      /^\s*generation\s+0\s+starts at\s+0x[0-9a-f`]+/im,
    ],
  },
  {
    command: '!address -summary',
    any: [
      // --- Usage Summary ---------------- RgnCount ----------- Total Size -------- %ofBusy %ofTotal
      /^\s*---\s+Usage Summary\s+-{3,}\s+RgnCount\b/im,
    ],
  },
  {
    command: '!heap -s',
    any: [
      //   Heap     Flags   Reserv  Commit  Virt   Free  List   UCR  Virt  Lock  Fast
      /^\s*Heap\s+Flags\s+Reserv\s+Commit\b/im,
      // LFH Key                   : 0xa893144b6b979747
      /^\s*LFH Key\s*:\s*0x[0-9a-f`]+\s*$/im,
      //                                               NT HEAP STATS BELOW
      /^\s*NT HEAP STATS BELOW\s*$/m,
    ],
  },
  {
    command: '!heap -stat',
    any: [
      // group-by: TOTSIZE max-display: 20
      /^\s*group-by:\s*\S+\s+max-display:\s*\d+\s*$/im,
      //     size     #blocks     total     ( %) (percent of total busy bytes)
      /^\s*size\s+#blocks\s+total\b/im,
    ],
  },
  {
    command: '.exr -1',
    any: [
      // ExceptionAddress: 778a4bb2 (KERNELBASE!RaiseException+0x00000062)
      /^\s*ExceptionAddress: [0-9a-f`]{1,17}\b/im,
    ],
  },
  {
    command: '.lastevent',
    any: [
      // Last event: Exception C00000FD, second chance
      /^\s*Last event: /m,
    ],
  },
  {
    command: 'lm',
    any: [
      // start             end                 module name
      /^\s*start\s+end\s+module name\s*$/m,
    ],
  },
  {
    command: 'info share',
    any: [
      // Module  Address                                 Debug info      Name (12 modules)
      /^\s*Module\s+Address\s+Debug info\s+Name\b/m,
    ],
  },
  {
    command: 'bt',
    any: [
      // =>0 0x0000014000154a crash_here+0x1a(mode=0x1) [Z:\work\main\test\targets\av.c:9] in av (0x00000000c812e0)
      /^\s*=>\s?\d+ (?:0x)?[0-9a-f]+ /m,
    ],
  },
  {
    command: 'k',
    any: [
      //  # Child-SP          RetAddr           Call Site
      // ChildEBP RetAddr  Args to Child
      //  # Call Site
      /^\s*(?:#\s+)?(?:Child-SP\s+RetAddr|ChildEBP\s+RetAddr|Call Site\s*$)/m,
    ],
    // 00 000000c8`2647f708 00007ff6`6e783d36     notepad!wWinMain
    many: {
      pattern: /^(?:[0-9a-f]{2,3}\s+)?[0-9a-f`]{8,17}\s+[0-9a-f`]{8,17}\s+.*\S![\w?@$]/i,
      count: 2,
    },
  },
];

/**
 * The command whose output `text` looks like, or null when nothing is recognised with
 * confidence. The command is a representative spelling (`!heap -s`, `k`, `umdh log1 log2`) that
 * the parser registry maps to its kind.
 */
export function sniffCommand(text: string): string | null {
  for (const sniff of SNIFFS) {
    if (sniff.any.some((re) => re.test(text))) return sniff.command;
    if (sniff.many !== undefined) {
      const { pattern, count } = sniff.many;
      let seen = 0;
      for (const line of text.split(/\r?\n/)) {
        if (pattern.test(line) && ++seen >= count) return sniff.command;
      }
    }
  }
  return null;
}
