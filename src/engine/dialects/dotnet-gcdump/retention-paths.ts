// What holds the objects of a type, from a gcdump's object graph: every object's path from a root,
// grouped by the chain of type names. The graph's root node (`[.NET Roots]`) has one child per
// kind of root (`[static vars]`, `[other roots]` with the handle tables, `[local vars]`), and a
// static's node is named `[static var <field type>.<field name>]` (DotNetHeapDumpGraphReader.cs:
// the field's type and name; its declaring class is not recorded). Paths are found breadth-first,
// statics first, then handles, then locals, then the rest: an object a static holds is reported as
// held by the static even when a stack also points at it (a long-lived cache is the leak; the stack
// that happens to touch it is not). Every object of the type is counted, no sampling. Pure.
import { nodeTypeAndSize, readNode, type GcDump } from './gcdump-file.js';
import { typeNameOf } from './type-histogram.js';

export interface GraphChain {
  /** The root in words: `static field Live (a System.Collections.Generic.Dictionary<…>)`. */
  root: string;
  /** Type names from the object up to the root (the object's own type first). */
  chain: string[];
  /** Objects of the type held this way. */
  count: number;
}

export interface GraphRetention {
  type: string;
  /** Objects of the type in the graph. */
  objects: number;
  /** Objects no root reaches (garbage the GC had not freed, or pseudo nodes). */
  unreachable: number;
  /** The chains, most objects first, at most `maxChains`. */
  chains: GraphChain[];
}

/** Root groups in the order their paths are preferred. */
const ROOT_PRIORITY = ['[static vars]', '[other roots]', '[local vars]'];
/** Longest chain kept: the object's end and the root's end, with the middle elided. */
const MAX_CHAIN = 12;

// "[static var System.Collections.Generic.Dictionary<System.Guid,X>.Live]"
const STATIC_RE = /^\[static var (.+)\.([^.]+)\]$/;

/** A root node's name in words. */
export function rootText(name: string): string {
  const match = STATIC_RE.exec(name);
  if (match !== null) return `static field ${match[2] ?? ''} (a ${match[1] ?? ''})`;
  return name.replace(/^\[|\]$/g, '');
}

/**
 * Parent of every node on its preferred path from the root (-1: unreached; the root's own is
 * itself). Breadth-first per root group, in ROOT_PRIORITY order.
 */
export function pathParents(dump: GcDump): Int32Array {
  const parent = new Int32Array(dump.nodeCount).fill(-1);
  const root = dump.rootIndex;
  parent[root] = root;
  const groups = readNode(dump, root).children;
  const rank = (g: number): number => {
    const at = ROOT_PRIORITY.indexOf(dump.types[readNode(dump, g).type]?.name ?? '');
    return at < 0 ? ROOT_PRIORITY.length : at;
  };
  const ordered = [...groups].sort((a, b) => rank(a) - rank(b));
  const queue = new Int32Array(dump.nodeCount);
  for (const group of ordered) {
    if (parent[group] !== -1) continue;
    parent[group] = root;
    let head = 0;
    let tail = 0;
    queue[tail++] = group;
    while (head < tail) {
      const node = queue[head++] ?? 0;
      for (const child of readNode(dump, node).children) {
        if (parent[child] !== -1) continue;
        parent[child] = node;
        queue[tail++] = child;
      }
    }
  }
  return parent;
}

/** Chains of type names that hold the objects of each of `types` (names without size buckets). */
export function retentionPaths(
  dump: GcDump,
  types: readonly string[],
  options: { maxChains?: number; parents?: Int32Array } = {},
): GraphRetention[] {
  const wanted = new Set(types);
  const typeName = dump.types.map((t) => typeNameOf(t.name));
  const parent = options.parents ?? pathParents(dump);
  const results = new Map<
    string,
    { objects: number; unreachable: number; chains: Map<string, GraphChain> }
  >();
  for (const type of types) results.set(type, { objects: 0, unreachable: 0, chains: new Map() });
  const memo = new Map<number, Held>();
  for (let i = 0; i < dump.nodeCount; i++) {
    const node = nodeTypeAndSize(dump, i);
    const name = typeName[node.type] ?? '';
    if (!wanted.has(name) || node.size <= 0) continue;
    const result = results.get(name);
    if (result === undefined) continue;
    result.objects++;
    const walked = walkUp(dump, parent, i, typeName, memo);
    if (walked === undefined) {
      result.unreachable++;
      continue;
    }
    const key = `${walked.root}\u0000${walked.chain.join('\u0000')}`;
    const entry = result.chains.get(key) ?? { ...walked, count: 0 };
    entry.count++;
    result.chains.set(key, entry);
  }
  return types.map((type) => {
    const result = results.get(type);
    const chains = [...(result?.chains.values() ?? [])].sort((a, b) => b.count - a.count);
    return {
      type,
      objects: result?.objects ?? 0,
      unreachable: result?.unreachable ?? 0,
      chains: chains.slice(0, options.maxChains ?? 5),
    };
  });
}

type Held = { root: string; chain: string[] } | undefined;

/**
 * The chain of types from `node` up to its root, or undefined when no root reaches it. Memoized
 * per node: the objects one array holds share everything above it.
 */
function walkUp(
  dump: GcDump,
  parent: Int32Array,
  node: number,
  typeName: readonly string[],
  memo: Map<number, Held>,
): Held {
  // Iterative: climb until a memoized node or a root, then fill the memo on the way down.
  const path: number[] = [];
  let found: Held;
  let at = node;
  for (;;) {
    if (memo.has(at)) {
      found = memo.get(at);
      break;
    }
    const step = rootStep(dump, parent, at, typeName);
    if (step !== 'climb') {
      found = step;
      memo.set(at, found);
      break;
    }
    path.push(at);
    at = parent[at] ?? -1;
    // A parent tree has no cycles; the bound only guards a malformed graph.
    if (path.length > dump.nodeCount) return undefined;
  }
  for (let i = path.length - 1; i >= 0; i--) {
    const n = path[i] ?? 0;
    found =
      found === undefined
        ? undefined
        : {
            root: found.root,
            chain: [typeName[nodeTypeAndSize(dump, n).type] ?? '', ...found.chain],
          };
    memo.set(n, found);
  }
  return found === undefined ? undefined : { root: found.root, chain: elide(found.chain) };
}

/** Whether `node` ends its path (a root, or no path at all) or the walk climbs on. */
function rootStep(
  dump: GcDump,
  parent: Int32Array,
  node: number,
  typeName: readonly string[],
): Held | 'climb' {
  const root = dump.rootIndex;
  const up = parent[node] ?? -1;
  if (up === -1) return undefined;
  const name = dump.types[nodeTypeAndSize(dump, node).type]?.name ?? '';
  if (up === root) return { root: rootText(name), chain: [] };
  if ((parent[up] ?? -1) !== root) return 'climb';
  // `node` is a child of a root group: the root itself (a static's node, a handle table), or,
  // under `[local vars]`, the object a stack holds.
  if (name.startsWith('[')) return { root: rootText(name), chain: [] };
  const group = dump.types[nodeTypeAndSize(dump, up).type]?.name ?? '';
  return { root: rootText(group), chain: [typeName[nodeTypeAndSize(dump, node).type] ?? name] };
}

function elide(chain: string[]): string[] {
  if (chain.length <= MAX_CHAIN) return chain;
  const half = MAX_CHAIN / 2;
  return [...chain.slice(0, half), `… ${chain.length - MAX_CHAIN} more …`, ...chain.slice(-half)];
}
