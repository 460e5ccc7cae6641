// Retention for the top suspect types: which chains of references keep their objects alive. For
// each type, `!dumpheap -mt MT -short` lists its objects on the last sample's dump (by method
// table: `-type` matches substrings and would mix in the collections that hold the type, see
// test/fixtures/transcripts/dotnet-dump/dumpheap-type-short-sessions-linux-net10.txt); a handful
// spread over the list get `!gcroot`; the chains are grouped (retention-chains.ts), SOS's static
// labels checked against the classes' statics first (static-labels.ts: two more batches when a
// chain has one). All inside one time budget: what does not fit is skipped with the reason.
import { isHarnessError, shortErrorMessage } from '../../errors.js';
import type { SosBatchOutputs } from '../../engine/dialects/index.js';
import { parseDumpHeapShort } from '../../parsers/dump-heap-short.js';
import { parseGcRoot } from '../../parsers/gc-root.js';
import { groupRetention, labelledHolders } from '../../report/heap-trend/retention-chains.js';
import type { RetentionEntry } from '../../report/heap-trend/types.js';
import { checkStaticLabels } from './static-labels.js';

/** Why a type has no chains when the last dump has none of its objects (retention finished). */
export const NO_OBJECTS = 'no objects of the type in the last dump';

export interface RetentionSuspect {
  type: string;
  methodTable: string;
}

export interface RetentionOptions {
  /** Objects per type whose roots are asked for (default 5). */
  objectsPerType?: number;
  /** The whole step's budget in ms. */
  budgetMs: number;
  /**
   * SOS on the run's FIRST dump: the objects it already had are left out of the picks, so the
   * chains asked for are those of objects new since the first sample (the leak), not of a large
   * constant collection of the same type (4 of 5 `String` chains led to a constant list).
   */
  baseline?: SosRunner;
}

/** Runs SOS commands on the dump within `timeoutMs`. */
export type SosRunner = (
  commands: readonly string[],
  timeoutMs: number,
) => Promise<SosBatchOutputs>;

/** Up to `n` items spread evenly over `list` (first and last included). */
export function spread<T>(list: readonly T[], n: number): T[] {
  if (list.length <= n) return [...list];
  if (n <= 1) return list.slice(0, 1);
  const picked: T[] = [];
  for (let i = 0; i < n; i++) {
    const item = list[Math.round((i * (list.length - 1)) / (n - 1))];
    if (item !== undefined) picked.push(item);
  }
  return picked;
}

export function skippedAll(
  suspects: readonly RetentionSuspect[],
  reason: string,
): RetentionEntry[] {
  return suspects.map((s) => ({
    type: s.type,
    methodTable: s.methodTable,
    sampled: 0,
    roots: [],
    skipped: reason,
  }));
}

function why(error: unknown, budgetMs: number): string {
  if (isHarnessError(error) && error.code === 'TIMEOUT') {
    return `skipped: SOS did not finish within the retention budget (${Math.round(budgetMs / 1000)} s)`;
  }
  return `skipped: ${shortErrorMessage(error)}`;
}

/** The objects of each suspect type in the first dump (undefined: no baseline, or it failed). */
async function baselineAddresses(
  baseline: SosRunner | undefined,
  suspects: readonly RetentionSuspect[],
  left: () => number,
): Promise<(Set<string> | undefined)[] | undefined> {
  if (baseline === undefined) return undefined;
  try {
    const before = await baseline(
      suspects.map((s) => `dumpheap -mt ${s.methodTable} -short`),
      left(),
    );
    return suspects.map((_, i) => {
      const text = before.outputs[i];
      return text === undefined ? undefined : new Set(parseDumpHeapShort(text).addresses);
    });
  } catch {
    return undefined;
  }
}

export async function traceRetention(
  run: SosRunner,
  suspects: readonly RetentionSuspect[],
  options: RetentionOptions,
): Promise<RetentionEntry[]> {
  if (suspects.length === 0) return [];
  const began = performance.now();
  const left = () => Math.max(1, options.budgetMs - (performance.now() - began));
  const perType = options.objectsPerType ?? 5;
  let listed: SosBatchOutputs;
  try {
    listed = await run(
      suspects.map((s) => `dumpheap -mt ${s.methodTable} -short`),
      left(),
    );
  } catch (error) {
    return skippedAll(suspects, why(error, options.budgetMs));
  }
  const old = await baselineAddresses(options.baseline, suspects, left);
  const newCounts: (number | undefined)[] = [];
  const picks = suspects.map((_, i) => {
    const text = listed.outputs[i];
    if (text === undefined) return [];
    const all = parseDumpHeapShort(text).addresses;
    const before = old?.[i];
    if (before === undefined) return spread(all, perType);
    const fresh = all.filter((a) => !before.has(a));
    newCounts[i] = fresh.length;
    // None new (a type that grew by replacement): the whole list is all there is.
    return spread(fresh.length > 0 ? fresh : all, perType);
  });
  const commands = picks.flat().map((address) => `gcroot ${address}`);
  let rooted: SosBatchOutputs = { outputs: [] };
  let failure: string | undefined;
  if (commands.length > 0) {
    try {
      // `dumpdomain` rides along: the modules whose classes check SOS's static labels.
      rooted = await run([...commands, 'dumpdomain'], left());
    } catch (error) {
      failure = why(error, options.budgetMs);
    }
  }
  let next = 0;
  const recordsOf = picks.map((addresses) => {
    const records = addresses
      .map((address, j) => {
        const text = rooted.outputs[next + j];
        return text === undefined ? null : parseGcRoot(text, `gcroot ${address}`);
      })
      .filter((r) => r !== null);
    next += addresses.length;
    return records;
  });
  const checks = await checkStaticLabels(
    run,
    labelledHolders(recordsOf.flat()),
    rooted.outputs[commands.length],
    left,
  );
  return suspects.map((suspect, i) => {
    const addresses = picks[i] ?? [];
    const records = recordsOf[i] ?? [];
    const entry: RetentionEntry = {
      type: suspect.type,
      methodTable: suspect.methodTable,
      sampled: records.length,
      roots: groupRetention(records, checks),
    };
    const fresh = newCounts[i];
    if (fresh !== undefined) {
      entry.newObjects = fresh;
      entry.pickedFrom = fresh > 0 ? 'new' : 'all';
    }
    if (listed.outputs[i] === undefined) {
      entry.skipped = `skipped: dumpheap -mt stopped (${listed.stopped?.text ?? 'no output'})`;
    } else if (addresses.length === 0) entry.skipped = NO_OBJECTS;
    else if (records.length < addresses.length) {
      entry.skipped =
        failure ??
        `only ${records.length} of ${addresses.length} gcroot replies (${rooted.stopped?.text ?? 'SOS stopped'})`;
    }
    return entry;
  });
}
