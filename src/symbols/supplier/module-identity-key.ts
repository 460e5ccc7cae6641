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
  // Asked on every lookup a walk makes (each frame's name and unwind data, each scanned word's
  // "inside a function?"): the key is built once per module object and kept while the fields it
  // is made of are the same objects.
  const cv = module.codeView;
  const known = identityKeys.get(module);
  if (
    known !== undefined &&
    known.name === module.name &&
    known.codeId === module.codeId &&
    known.cv === cv
  ) {
    return known.key;
  }
  const key = `${module.name.toLowerCase()}|${module.codeId ?? ''}|${cv?.pdbName ?? ''}|${cv?.debugId ?? ''}`;
  identityKeys.set(module, { key, name: module.name, codeId: module.codeId, cv });
  return key;
}

const identityKeys = new WeakMap<
  SymbolModule,
  { key: string; name: string; codeId: string | undefined; cv: SymbolModule['codeView'] }
>();
