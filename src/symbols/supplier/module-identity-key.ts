// The key everything remembered about a module's symbols is filed under (answers, open files,
// image searches, a dump's lookup failures), and the part of a module the supplier needs.
import type { ModuleIdentity } from '../../common/module-identity.js';

/** What the symbolizer needs of a module: the dump side's one ModuleIdentity, base aside. */
export type SymbolModule = Pick<
  ModuleIdentity,
  'name' | 'path' | 'timestamp' | 'size' | 'codeId' | 'codeView'
>;

/**
 * One build of one module: its name with the PDB name + GUID + age (CodeView) and the code id
 * (time stamp + size). Everything remembered about a module's symbols is keyed by this, never by
 * the file name alone: two builds of `app.dll` in one batch are two modules.
 */
export function moduleIdentityKey(module: SymbolModule): string {
  // Asked for every module a walk meets in every dump, and each dump parses its own module
  // objects: the key is kept by the fields it is made of (name, then the build's ids), so the
  // same build in the next dump finds it by comparing strings, without building it again.
  const cv = module.codeView;
  const builds = keysByName.get(module.name);
  if (builds !== undefined) {
    for (const known of builds) {
      if (
        known.codeId === module.codeId &&
        known.pdbName === cv?.pdbName &&
        known.debugId === cv?.debugId
      ) {
        return known.key;
      }
    }
  }
  const key = `${module.name.toLowerCase()}|${module.codeId ?? ''}|${cv?.pdbName ?? ''}|${cv?.debugId ?? ''}`;
  const known = { key, codeId: module.codeId, pdbName: cv?.pdbName, debugId: cv?.debugId };
  if (builds === undefined) {
    // Bounded: a batch over more names than this starts the list again.
    if (keysByName.size >= MAX_NAMES) keysByName.clear();
    keysByName.set(module.name, [known]);
  } else if (builds.length < MAX_BUILDS_PER_NAME) {
    builds.push(known);
  }
  return key;
}

interface KnownKey {
  key: string;
  codeId: string | undefined;
  pdbName: string | undefined;
  debugId: string | undefined;
}

/** Keys made lately, by module name as the dump spells it. */
const keysByName = new Map<string, KnownKey[]>();
const MAX_NAMES = 4096;
const MAX_BUILDS_PER_NAME = 16;
