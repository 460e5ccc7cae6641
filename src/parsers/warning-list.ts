// Warnings are the lines a parser could not place. On a 100 MB report of garbage that could be
// every line, so the list is capped and long lines are shortened: the record stays small and the
// caller still learns how much was skipped.

/** Longest warning text kept; longer lines are cut and say how long they were. */
export const MAX_WARNING_CHARS = 300;
/** Most warnings kept; after that one summary warning counts the rest. */
export const MAX_WARNINGS = 200;

// Function-valued properties rather than methods: `warnings.add` may be passed around unbound.
export interface WarningList {
  add: (text: string) => void;
  /** The warnings, ending with `… N more warnings not kept` when the cap was reached. */
  list: () => string[];
}

export function createWarningList(): WarningList {
  const kept: string[] = [];
  let dropped = 0;
  return {
    add: (text: string): void => {
      if (kept.length >= MAX_WARNINGS) {
        dropped++;
        return;
      }
      kept.push(
        text.length > MAX_WARNING_CHARS && !isShortened(text)
          ? shortened(text.slice(0, MAX_WARNING_CHARS), text.length)
          : text,
      );
    },
    list: (): string[] => {
      return dropped === 0 ? [...kept] : [...kept, `… ${dropped} more warnings not kept`];
    },
  };
}

/** Warning text for a line the parser could not place. */
export function unplaced(line: string): string {
  const trimmed = line.trim();
  if (UNPLACED.length + trimmed.length <= MAX_WARNING_CHARS) return UNPLACED + trimmed;
  // A long line is cut before it is joined to the prefix, as `add` would cut it: joined first,
  // the whole line was copied to be cut (120 ms of CPU for one 32 MB line, a third of its
  // parse; bench/parse-long-line.ts).
  const head = UNPLACED + trimmed.slice(0, MAX_WARNING_CHARS - UNPLACED.length);
  return shortened(head, UNPLACED.length + trimmed.length);
}

const UNPLACED = 'unrecognised line: ';

function shortened(head: string, length: number): string {
  return `${head}… (${length} chars)`;
}

/** Text `shortened` made already (it is never cut twice); a longer one is cut whatever it says. */
function isShortened(text: string): boolean {
  // Sample: unrecognised line: ntdll!RtlUserThreadStart+0x21 …… (33554432 chars)
  return text.length <= MAX_WARNING_CHARS + 40 && /… \(\d{1,16} chars\)$/.test(text);
}
