// Groups `!gcroot` results into retention chains: objects of one type held the same way (same
// root, same types along the way) count as one chain. Addresses are dropped so that different
// objects held by one collection fall into one group. Pure.
import type { GcRootPath, GcRootRecord } from '../../parsers/gc-root.js';
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

/**
 * Type names from the object up to the root, with SOS's notes kept; a `static variable: …` note
 * is marked as SOS's guess (gcroot names a static of the right shape, not always the one).
 */
function chainText(path: GcRootPath): string[] {
  return path.chain
    .map((link) =>
      link.note === undefined
        ? link.typeName
        : `${link.typeName} (${link.note}${STATIC_NOTE_RE.test(link.note) ? `: ${GUESS}` : ''})`,
    )
    .reverse();
}

/**
 * What holds the chain's objects: the link SOS labels as a static variable, else the first link
 * under the root that is not the runtime's own `Object[]` of statics or handles.
 */
function holderOf(path: GcRootPath): { holder?: string; staticLabel?: string } {
  const labelled = path.chain.find((l) => l.note !== undefined && STATIC_NOTE_RE.test(l.note));
  if (labelled !== undefined) {
    return {
      holder: labelled.typeName,
      ...(labelled.note === undefined ? {} : { staticLabel: labelled.note }),
    };
  }
  const first = path.chain.find((l) => l.typeName !== 'System.Object[]');
  return first === undefined ? {} : { holder: first.typeName };
}

/** Most common chain first; handle roots before stack roots at equal counts (they outlive calls). */
export function groupRetention(records: readonly GcRootRecord[]): RetentionRoot[] {
  const groups = new Map<string, RetentionRoot>();
  for (const record of records) {
    // One object can have several roots; count each distinct chain once per object.
    const seen = new Set<string>();
    for (const path of record.roots) {
      const root = rootText(path);
      const chain = chainText(path);
      const key = `${root}\u0000${chain.join('\u0000')}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const group = groups.get(key);
      if (group === undefined) {
        const { holder, staticLabel } = holderOf(path);
        groups.set(key, {
          root,
          chain,
          count: 1,
          ...(holder === undefined ? {} : { holder }),
          ...(staticLabel === undefined ? {} : { staticLabel, labelChecked: false }),
        });
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
