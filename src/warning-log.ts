// Warnings with a ceiling. A hostile dump can make a reader warn once per entry of a list that
// claims a million entries; kept whole, those warnings were most of a 115 MB record and of the
// memory that killed a batch. So: the first few of each kind are kept, the rest are counted, and
// one line per kind says how many more there were. Memory is bounded by the limits, not the input.

export interface WarningLimits {
  /** Messages kept per kind (default 5). */
  perKind?: number;
  /** Messages kept in all (default 100). */
  total?: number;
}

const DEFAULT_PER_KIND = 5;
const DEFAULT_TOTAL = 100;

/**
 * The kind of a message: the message with its numbers blanked, so `module 3: string RVA 0x10 is
 * past the end` and `module 4: string RVA 0x20 is past the end` are one kind.
 */
export function warningKind(message: string): string {
  // Sample: "ModuleList: name of module 17: string RVA 0xfffffff0 is past the end of the file"
  return message.replace(/0x[0-9a-f]+|\d+/gi, '#');
}

export class WarningLog {
  readonly #perKind: number;
  readonly #total: number;
  readonly #kept: string[] = [];
  readonly #seen = new Set<string>();
  /** Per kind: messages kept, messages dropped, and the first message (for the summary line). */
  readonly #kinds = new Map<string, { kept: number; dropped: number; first: string }>();
  /** Dropped messages of kinds that arrived after the table was full. */
  #droppedOther = 0;

  constructor(limits: WarningLimits = {}) {
    this.#perKind = Math.max(1, limits.perKind ?? DEFAULT_PER_KIND);
    this.#total = Math.max(1, limits.total ?? DEFAULT_TOTAL);
  }

  /** Adds a message (exact repeats are ignored); `kind` groups it, by default warningKind(). */
  add(message: string, kind = warningKind(message)): void {
    if (this.#seen.has(message)) return;
    let entry = this.#kinds.get(kind);
    if (entry === undefined) {
      if (this.#kinds.size >= this.#total) {
        this.#droppedOther++;
        return;
      }
      entry = { kept: 0, dropped: 0, first: message };
      this.#kinds.set(kind, entry);
    }
    if (entry.kept < this.#perKind && this.#kept.length < this.#total) {
      entry.kept++;
      this.#kept.push(message);
      this.#seen.add(message);
    } else {
      entry.dropped++;
    }
  }

  addAll(messages: Iterable<string>): void {
    for (const message of messages) this.add(message);
  }

  /** Messages dropped so far. */
  get dropped(): number {
    let n = this.#droppedOther;
    for (const entry of this.#kinds.values()) n += entry.dropped;
    return n;
  }

  /** The kept messages in arrival order, then one line per kind that had more. */
  list(): string[] {
    const out = [...this.#kept];
    for (const entry of this.#kinds.values()) {
      if (entry.dropped > 0) out.push(`(${entry.dropped} more like: ${entry.first})`);
    }
    if (this.#droppedOther > 0) out.push(`(${this.#droppedOther} more warnings of other kinds)`);
    return out;
  }
}

/** A list of warnings cut down as WarningLog keeps them. */
export function capWarnings(messages: Iterable<string>, limits: WarningLimits = {}): string[] {
  // Most records have a few different warnings: no kind can be over its limit, nothing is cut.
  if (Array.isArray(messages) && fewAndDistinct(messages as readonly string[], limits)) {
    return [...(messages as readonly string[])];
  }
  const log = new WarningLog(limits);
  log.addAll(messages);
  return log.list();
}

/** At most as many messages as one kind may keep, none repeated: WarningLog would keep them all. */
function fewAndDistinct(messages: readonly string[], limits: WarningLimits): boolean {
  const keep = Math.min(
    Math.max(1, limits.perKind ?? DEFAULT_PER_KIND),
    Math.max(1, limits.total ?? DEFAULT_TOTAL),
  );
  if (messages.length > keep) return false;
  for (let i = 1; i < messages.length; i++) {
    if (messages.indexOf(messages[i]!, 0) < i) return false;
  }
  return true;
}
