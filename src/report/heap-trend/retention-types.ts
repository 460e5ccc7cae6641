// The retention part of the heap-trend data model (report.json's `retention` and
// `retentionGroups`): what holds the objects of a suspect type. Re-exported by types.ts.

/** One chain of references that keeps objects of a type alive, from `!gcroot`, grouped. */
export interface RetentionRoot {
  /** The root in words: `strong handle`, `stack of thread 680d: Sessions.Run(Options)`. */
  root: string;
  /** Type names from the object up to the root (the object's own type first). */
  chain: string[];
  /** How many of the sampled objects are held this way. */
  count: number;
  // ---- additions (issue 32) ----
  /** What holds the objects: the chain's static field holder, else its first object under the root. */
  holder?: string;
  /** SOS's `static variable: …` label of the holder, as SOS printed it. */
  staticLabel?: string;
  /**
   * Whether the label was checked against the static fields of the classes (`dumpclass`): false
   * means it is SOS's guess (SOS names a static of the right shape, not always the one that holds
   * the object: `NumberFormatInfo.<InvariantInfo>k__BackingField` for a dictionary held by
   * `Sessions.Live`).
   */
  labelChecked?: boolean;
  /**
   * The static that holds the object, declaring class and field (`…SessionCache.Entries`), found
   * by the check (`dumpclass` of the program's classes: the static whose value is the object).
   */
  staticField?: string;
  /** Whether SOS's label named that same field (false: SOS named another, its neighbour). */
  labelAgrees?: boolean;
  /** Gcdump graph: objects held this way in the first snapshot (the growth is count - countFirst). */
  countFirst?: number;
}

/** Types that grew together and are held the same way (the top chain of each ends in one holder). */
export interface RetentionGroup {
  holder: string;
  staticLabel?: string;
  labelChecked?: boolean;
  /** The checked static (see RetentionRoot.staticField). */
  staticField?: string;
  labelAgrees?: boolean;
  /** The root under the holder (`strong handle`). */
  root: string;
  types: { type: string; countGrowth?: number; growthKb?: number }[];
  /** The group in words: `Byte[] and SessionState grew by 8,192 objects each, held by …`. */
  text: string;
}

/** What holds the objects of one suspect type (`!dumpheap -mt MT -short` + `!gcroot`). */
export interface RetentionEntry {
  type: string;
  methodTable?: string;
  /** Objects whose roots were asked for. */
  sampled: number;
  roots: RetentionRoot[];
  /** Why there are no chains (the time budget ran out, SOS failed). */
  skipped?: string;
  // ---- additions (issue 32) ----
  /** Objects of the type in the last dump that the first dump did not have. */
  newObjects?: number;
  /** The objects sampled were picked among the `new` ones, or among `all` (none was new). */
  pickedFrom?: 'new' | 'all';
  /** Where the chains come from: SOS `gcroot` on a dump, or a gcdump's whole object graph. */
  from?: 'sos' | 'gcdump-graph';
  /** Gcdump graph: objects of the type in it (every one is counted: `sampled` equals it). */
  objects?: number;
  /** Gcdump graph: objects of the type no root reaches (garbage not yet collected). */
  unreachable?: number;
}
