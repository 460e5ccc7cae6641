// Checks SOS's static-variable labels. gcroot labels the object a static holds with
// `static variable: <field type>.<field name>`, found by the slot the object has in the runtime's
// statics array (dotnet/diagnostics GCRootCommand: StaticVariableService.TryGetStaticByAddress),
// and on .NET 10 that names the field of the slot before it: the lab program's
// `SessionCache.Entries` dictionary comes out as `List<String>.Ballast`, its neighbour
// (test/fixtures/transcripts/dotnet-dump/gcroot-cache-session-state-linux-net10.txt). So the label
// is checked on the same dump: the program's own modules (`dumpdomain`, the runtime's shared
// framework left out), the types each defines (`dumpmodule -mt`), and each type's static fields
// with their values (`dumpclass MT`); the static whose value is the object's address is the one
// that holds it. Bounded: at most MAX_CHECKED_TYPES classes, inside the retention budget; what
// cannot be checked stays SOS's guess.
import type { SosBatchOutputs } from '../../engine/dialects/index.js';
import {
  parseDumpClassStatics,
  parseDumpDomainModules,
  parseDumpModuleTypes,
} from '../../parsers/sos-statics.js';
import { addressOf, hexToken } from '../../parsers/hex-token.js';

/** Classes whose statics are read at most (a big program defines thousands of types). */
export const MAX_CHECKED_TYPES = 2000;

export interface StaticCheck {
  /** The static that holds the object, declaring class and field: `…SessionCache.Entries`. */
  field: string;
  /** Whether SOS's label named that same field. */
  agrees: boolean;
}

type Runner = (commands: readonly string[], timeoutMs: number) => Promise<SosBatchOutputs>;

// static variable: System.Collections.Generic.List<System.String>.Ballast
const LABEL_PREFIX_RE = /^static variable:\s*/i;

/** SOS's label without its `static variable:` prefix. */
export function labelText(label: string): string {
  return label.replace(LABEL_PREFIX_RE, '');
}

/** The field name a label ends with (after the last `.` outside `<…>`). */
export function labelField(label: string): string {
  const text = labelText(label);
  let depth = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text[i];
    if (c === '>') depth++;
    else if (c === '<') depth--;
    else if (c === '.' && depth === 0) return text.slice(i + 1);
  }
  return text;
}

/** A module of the runtime's shared framework (or the BCL), not the program's own. */
export function isFrameworkModule(path: string): boolean {
  // /usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/System.Private.CoreLib.dll
  if (/[\\/]shared[\\/]Microsoft\.[A-Za-z.]+[\\/]/.test(path)) return true;
  const name = path.split(/[\\/]/).pop() ?? '';
  return /^(System|Microsoft|mscorlib|netstandard)\./i.test(name);
}

/** A dumpclass value (`00007f013d80ba48`) as an address; undefined when it is no hex number. */
function toAddress(hex: string): bigint | undefined {
  const token = hexToken(hex.toLowerCase());
  return token === null ? undefined : addressOf(token);
}

/**
 * For each labelled object (its address and SOS's label), the static that really holds it, when
 * one of the program's classes does. `dumpdomainText` is `dumpdomain` on the same dump.
 */
export async function checkStaticLabels(
  run: Runner,
  holders: ReadonlyMap<bigint, string>,
  dumpdomainText: string | undefined,
  left: () => number,
): Promise<Map<bigint, StaticCheck>> {
  const checks = new Map<bigint, StaticCheck>();
  if (holders.size === 0 || dumpdomainText === undefined) return checks;
  const modules = parseDumpDomainModules(dumpdomainText).filter((m) => !isFrameworkModule(m.path));
  if (modules.length === 0) return checks;
  try {
    const listed = await run(
      modules.map((m) => `dumpmodule -mt ${m.address}`),
      left(),
    );
    const types = listed.outputs
      .flatMap((text) => parseDumpModuleTypes(text))
      .slice(0, MAX_CHECKED_TYPES);
    if (types.length === 0) return checks;
    const classes = await run(
      types.map((t) => `dumpclass ${t.methodTable}`),
      left(),
    );
    const found = new Map<bigint, string[]>();
    classes.outputs.forEach((text, i) => {
      const parsed = parseDumpClassStatics(text);
      const owner = parsed.className ?? types[i]?.name ?? '?';
      for (const field of parsed.statics) {
        const value = toAddress(field.value);
        if (value === undefined || value === 0n || !holders.has(value)) continue;
        found.set(value, [...(found.get(value) ?? []), `${owner}.${field.name}`]);
      }
    });
    for (const [address, label] of holders) {
      const fields = found.get(address);
      if (fields === undefined) continue;
      const name = labelField(label);
      const same = fields.find((f) => f.endsWith(`.${name}`));
      checks.set(address, { field: same ?? fields[0] ?? '', agrees: same !== undefined });
    }
  } catch {
    // Out of budget or SOS failed: the labels stay SOS's guess.
  }
  return checks;
}
