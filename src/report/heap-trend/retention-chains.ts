// Groups `!gcroot` results into retention chains: objects of one type held the same way (same
// root, same types along the way) count as one chain. Addresses are dropped so that different
// objects held by one collection fall into one group. Pure.
import type { GcRootLink, GcRootPath, GcRootRecord } from '../../parsers/gc-root.js';
import { addressOf } from '../../parsers/hex-token.js';
import type { RetentionRoot } from './types.js';

/** The root in words: `strong handle`, `stack of thread 680d: Sessions.Run(Options)`. */
export function rootText(path: GcRootPath): string {
  if (path.rootKind === 'stack') {
    const where = path.frame === undefined ? path.root : path.frame;
    return path.thread === undefined
      ? `stack: ${where}`
      : `stack of thread ${path.thread}: ${where}`;
  }
  return path.root;
}

// static variable: System.Globalization.NumberFormatInfo.<InvariantInfo>k__BackingField
const STATIC_NOTE_RE = /^static variable:/i;

/** SOS's static label is a guess until checked against the class's fields: said so in the text. */
export const GUESS = "SOS's guess, not checked";

/** What a check of SOS's label found (workflows/heap-trend/static-labels.ts), by object address. */
export interface LabelCheck {
  /** The static that holds the object: declaring class and field. */
  field: string;
  /** SOS's label named that same field. */
  agrees: boolean;
}

export type LabelChecks = ReadonlyMap<bigint, LabelCheck>;

function checkOf(link: GcRootLink, checks: LabelChecks | undefined): LabelCheck | undefined {
  return checks?.get(addressOf(link.address));
}

/**
 * A link's note in words: a `static variable: …` label checked against the classes' statics
 * names the static found (`static variable: …SessionCache.Entries, checked`, with SOS's own label
 * beside it when that named another field); unchecked, it is marked as SOS's guess.
 */
export function staticNoteText(note: string, check: LabelCheck | undefined): string {
  if (!STATIC_NOTE_RE.test(note)) return note;
  if (check === undefined) return `${note}: ${GUESS}`;
  const said = note.replace(/^static variable:\s*/i, '');
  return `static variable: ${check.field}, checked${check.agrees ? '' : `; SOS said ${said}`}`;
}

/** Type names from the object up to the root, with SOS's notes kept (static labels as above). */
function chainText(path: GcRootPath, checks: LabelChecks | undefined): string[] {
  return path.chain
    .map((link) =>
      link.note === undefined
        ? link.typeName
        : `${link.typeName} (${staticNoteText(link.note, checkOf(link, checks))})`,
    )
    .reverse();
}

type Holder = Pick<RetentionRoot, 'holder' | 'staticLabel' | 'labelChecked' | 'staticField'> & {
  labelAgrees?: boolean;
};

/**
 * What holds the chain's objects: the link SOS labels as a static variable, else the first link
 * under the root that is not the runtime's own `Object[]` of statics or handles.
 */
function holderOf(path: GcRootPath, checks: LabelChecks | undefined): Holder {
  const labelled = path.chain.find((l) => l.note !== undefined && STATIC_NOTE_RE.test(l.note));
  if (labelled?.note !== undefined) {
    const check = checkOf(labelled, checks);
    return {
      holder: labelled.typeName,
      staticLabel: labelled.note,
      labelChecked: check !== undefined,
      ...(check === undefined ? {} : { staticField: check.field, labelAgrees: check.agrees }),
    };
  }
  const first = path.chain.find((l) => l.typeName !== 'System.Object[]');
  return first === undefined ? {} : { holder: first.typeName };
}

/** The addresses of the objects SOS labelled as held by a static, with the label. */
export function labelledHolders(records: readonly GcRootRecord[]): Map<bigint, string> {
  const out = new Map<bigint, string>();
  for (const record of records) {
    for (const path of record.roots) {
      for (const link of path.chain) {
        if (link.note === undefined || !STATIC_NOTE_RE.test(link.note)) continue;
        out.set(addressOf(link.address), link.note);
      }
    }
  }
  return out;
}

/** Most common chain first; handle roots before stack roots at equal counts (they outlive calls). */
export function groupRetention(
  records: readonly GcRootRecord[],
  checks?: LabelChecks,
): RetentionRoot[] {
  const groups = new Map<string, RetentionRoot>();
  for (const record of records) {
    // One object can have several roots; count each distinct chain once per object.
    const seen = new Set<string>();
    for (const path of record.roots) {
      const root = rootText(path);
      const chain = chainText(path, checks);
      const key = `${root}\u0000${chain.join('\u0000')}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const group = groups.get(key);
      if (group === undefined) {
        groups.set(key, { root, chain, count: 1, ...holderOf(path, checks) });
      } else group.count++;
    }
  }
  return [...groups.values()].sort(
    (a, b) =>
      b.count - a.count ||
      Number(a.root.startsWith('stack')) - Number(b.root.startsWith('stack')) ||
      (a.root < b.root ? -1 : a.root > b.root ? 1 : 0),
  );
}

/** `SessionState ← Dictionary<…>+Entry[] ← Dictionary<…> ← Object[] ← strong handle`. */
export function chainLine(root: RetentionRoot): string {
  return [...root.chain, root.root].join(' ← ');
}
