// The walk's module table: binary-search lookup of the module holding an address (as bigint, and
// as a number where every module lies below 2^53), each module's image fetched once, and, with
// symbol files, the check that a scanned word can be a return address into a function they know
// (scan.ts returnAddressTrust). Built once per dump and shared by its threads' walks.
import { waits, type Maybe, type ModuleIndex } from './scan.js';
import type { ImageView, ModuleRef, WalkInput } from './types.js';

/** A sorted module table with binary-search lookup (a process has a few hundred modules). */
export function moduleIndex(modules: readonly ModuleRef[], input: WalkInput): ModuleIndex {
  // Module lists are mostly in address order already: sorted only when not.
  let inOrder = true;
  for (let i = 1; i < modules.length && inOrder; i++) {
    if (modules[i]!.base < modules[i - 1]!.base) inOrder = false;
  }
  const sorted = inOrder
    ? modules
    : [...modules].sort((a, b) => (a.base < b.base ? -1 : a.base > b.base ? 1 : 0));
  // Bounds computed once: a lookup does no BigInt arithmetic.
  const count = sorted.length;
  const bases: bigint[] = new Array<bigint>(count);
  const ends: bigint[] = new Array<bigint>(count);
  let numBases: Float64Array | undefined = new Float64Array(count);
  let numEnds: Float64Array | undefined = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const module = sorted[i]!;
    const end = module.base + BigInt(module.size);
    bases[i] = module.base;
    ends[i] = end;
    if (end > EXACT) numBases = numEnds = undefined;
    else if (numBases !== undefined && numEnds !== undefined) {
      numBases[i] = Number(module.base);
      numEnds[i] = Number(end);
    }
  }
  const cache = new Map<ModuleRef, Promise<ImageView | undefined>>();
  /** Images found so far (null: none), handed out without a promise. */
  const images = new Map<ModuleRef, ImageView | null>();
  const covered = new Map<ModuleRef, Promise<boolean>>();
  const coveredNow = new Map<ModuleRef, boolean>();
  const symbols = input.symbols;
  const covers = symbols?.covers?.bind(symbols);
  const index: ModuleIndex = {
    at(address) {
      let low = 0;
      let high = sorted.length - 1;
      while (low <= high) {
        const mid = (low + high) >>> 1;
        if (address < bases[mid]!) high = mid - 1;
        else if (address >= ends[mid]!) low = mid + 1;
        else return sorted[mid];
      }
      return undefined;
    },
    image(module) {
      const known = images.get(module);
      if (known !== undefined) return known ?? undefined;
      const source = input.images;
      if (source === undefined) return Promise.resolve(undefined);
      let found = cache.get(module);
      if (!found) {
        found = source.image(module);
        cache.set(module, found);
        found.then(
          (image) => images.set(module, image ?? null),
          () => undefined, // the walk that awaits `found` meets the error
        );
      }
      return found;
    },
  };
  if (numBases !== undefined && numEnds !== undefined) {
    // A local first, then stored (eslint.config.js, noFunctionLiteralIntoProperty).
    const atNumber: NonNullable<ModuleIndex['atNumber']> = (address) => {
      let low = 0;
      let high = sorted.length - 1;
      while (low <= high) {
        const mid = (low + high) >>> 1;
        if (address < numBases[mid]!) high = mid - 1;
        else if (address >= numEnds[mid]!) low = mid + 1;
        else return sorted[mid];
      }
      return undefined;
    };
    index.atNumber = atNumber;
  }
  if (symbols !== undefined && covers !== undefined) {
    // No call returns to a function's first byte: a word there is a function pointer.
    const notAStart = (module: ModuleRef, returnRva: number): Maybe<boolean> => {
      const hit = symbols.lookup(module, returnRva);
      return waits(hit) ? hit.then((h) => h?.offset !== 0) : hit?.offset !== 0;
    };
    // The call's last byte inside a function the file knows, and the word not a function start.
    const inside = (module: ModuleRef, returnRva: number): Maybe<boolean> => {
      const hit = symbols.lookup(module, returnRva - 1);
      if (waits(hit)) {
        return hit.then((h) => (h === undefined ? false : notAStart(module, returnRva)));
      }
      return hit === undefined ? false : notAStart(module, returnRva);
    };
    const inFunction: NonNullable<ModuleIndex['inFunction']> = (module, returnRva) => {
      const now = coveredNow.get(module);
      if (now !== undefined) return now ? inside(module, returnRva) : true;
      let known = covered.get(module);
      if (known === undefined) {
        known = Promise.resolve(covers(module));
        covered.set(module, known);
        known.then(
          (yes) => coveredNow.set(module, yes),
          () => undefined,
        );
      }
      return known.then((yes) => (yes ? inside(module, returnRva) : true));
    };
    index.inFunction = inFunction;
  }
  return index;
}

/** Addresses below this are exact as numbers. */
const EXACT = 0x20_0000_0000_0000n;
