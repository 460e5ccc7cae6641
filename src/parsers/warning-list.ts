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
        text.length > MAX_WARNING_CHARS
          ? `${text.slice(0, MAX_WARNING_CHARS)}… (${text.length} chars)`
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
  return `unrecognised line: ${line.trim()}`;
}
