// The modules bucketing looks through: system and runtime code that is on every crash stack and
// tells crashes apart no better than "it crashed" (Socorro calls these "irrelevant" frames).
// A `--skip-modules FILE` replaces the list; see docs/bucketing.md.
import { createHash } from 'node:crypto';

export const DEFAULT_SKIP_MODULES: readonly string[] = [
  // Windows user-mode system DLLs
  'ntdll',
  'kernelbase',
  'kernel32',
  'user32',
  'win32u',
  'gdi32',
  'combase',
  'ole32',
  'rpcrt4',
  'wow64',
  'wow64cpu',
  'wow64win',
  // C and C++ runtimes
  'msvcrt',
  'ucrtbase',
  'ucrtbased',
  'vcruntime140',
  'vcruntime140d',
  'vcruntime140_1',
  'msvcp140',
  'msvcp140d',
  'libgcc_s_seh-1',
  'libstdc++-6',
  // .NET runtimes and their native helpers
  'clr',
  'coreclr',
  'clrjit',
  'mscorwks',
  'mscoreei',
  'mscoree',
  'mscorlib.ni',
  'system.private.corelib',
];

/** `KERNELBASE.dll`, `C:\Windows\System32\ntdll.dll`, `ntdll` → `kernelbase`, `ntdll`, `ntdll`. */
export function normalizeModuleName(name: string): string {
  // Every frame of every record is signed by its module's name, and a batch has few modules.
  let normal = normalized.get(name);
  if (normal === undefined) {
    const base = name.split(/[\\/]/).pop() ?? name;
    // Sample: `KERNELBASE.dll`
    normal = base.replace(/\.(dll|exe|sys|drv|ocx)$/i, '').toLowerCase();
    if (normalized.size >= MAX_NORMALIZED) normalized.clear();
    normalized.set(name, normal);
  }
  return normal;
}

/** Names remembered by normalizeModuleName (then forgotten at once, and learnt again). */
const MAX_NORMALIZED = 4096;
const normalized = new Map<string, string>();

/**
 * A skip-list file: one module name per line; `#` and `$$` start comments; blank lines ignored.
 * Sample line: `ntdll.dll   # always on the stack`
 */
export function parseSkipModules(text: string): string[] {
  const names: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/(#|\$\$).*$/, '').trim();
    if (line !== '') names.push(normalizeModuleName(line));
  }
  return [...new Set(names)];
}

/** 8 hex digits naming a skip list, so a custom list yields a distinct algorithm id. */
export function skipListHash(names: readonly string[]): string {
  const sorted = [...new Set(names.map(normalizeModuleName))].sort();
  return createHash('sha256').update(sorted.join('\n')).digest('hex').slice(0, 8);
}
