// The three SOS listings that tell which class's static field holds an object, read to check the
// `static variable: …` label gcroot puts on a chain (heap-trend retention, issue 32):
// `dumpdomain` (the loaded modules), `dumpmodule -mt MODULE` (the types a module defines, with
// their method tables) and `dumpclass MT` (a class's fields, statics with their values). Recorded
// from dotnet-dump 10 on Linux: test/fixtures/transcripts/dotnet-dump/*-cache-linux-net10.txt.
// Pure; each reader keeps only the rows it knows and ignores the rest.

export interface SosModule {
  /** The module's address (hex, as SOS printed it). */
  address: string;
  path: string;
}

export interface SosTypeDef {
  methodTable: string;
  name: string;
}

export interface SosStaticField {
  /** The field's name (`Entries`, `<InvariantInfo>k__BackingField`). */
  name: string;
  /** Its value: for a reference type, the object's address (hex; 0 when null). */
  value: string;
  /** The field's type as SOS printed it (cut to its last 20 characters: `...te, cdbh-dotnet]]`). */
  type: string;
}

export interface SosClassStatics {
  /** `Class Name:` of the class. */
  className?: string;
  statics: SosStaticField[];
}

// "  00007fa015151a30    /work/app/build/linux-x64/cdbh-dotnet.dll"
// "00007ffa2f4e4020            C:\inetpub\app\bin\App.dll"   (Windows SOS: `Module Name` header)
const MODULE_RE = /^\s*([0-9a-f]{8,16})\s+(\S.*\.(?:dll|exe))\s*$/i;

/** The modules `dumpdomain` lists, each once. */
export function parseDumpDomainModules(text: string): SosModule[] {
  const seen = new Map<string, SosModule>();
  for (const line of text.split('\n')) {
    const m = MODULE_RE.exec(line);
    if (m === null) continue;
    const address = (m[1] ?? '').toLowerCase();
    if (!seen.has(address)) seen.set(address, { address, path: (m[2] ?? '').trim() });
  }
  return [...seen.values()];
}

// "Types defined in this module"
const DEFINED_RE = /^Types defined in this module/;
// "Types referenced in this module"
const REFERENCED_RE = /^Types referenced in this module/;
// "00007fa0153d65e8 0x02000007 CdbHarness.Targets.SessionCache"
const TYPE_ROW_RE = /^([0-9a-f]{8,16})\s+0x[0-9a-f]{8}\s+(\S.*?)\s*$/i;

/** The types `dumpmodule -mt` lists as defined in the module (not the ones it references). */
export function parseDumpModuleTypes(text: string): SosTypeDef[] {
  const types: SosTypeDef[] = [];
  let defined = false;
  for (const line of text.split('\n')) {
    if (DEFINED_RE.test(line)) defined = true;
    else if (REFERENCED_RE.test(line)) defined = false;
    else if (defined) {
      const m = TYPE_ROW_RE.exec(line);
      if (m !== null) types.push({ methodTable: (m[1] ?? '').toLowerCase(), name: m[2] ?? '' });
    }
  }
  return types;
}

// "Class Name:      CdbHarness.Targets.SessionCache"
const CLASS_NAME_RE = /^Class Name:\s+(\S.*?)\s*$/;
// "00007f2f8d1c5ed8 04000008        8 ...te, cdbh-dotnet]]   No   static 00007f23b140b6d8 Entries"
const STATIC_ROW_RE =
  /^\s*[0-9a-f]{8,16}\s+[0-9a-f]{4,8}\s+[0-9a-f]+\s+(.+?)\s+\S+\s+static\s+([0-9a-f]{1,16})\s+(\S+)\s*$/i;

/** A class's name and its static fields with their values, from `dumpclass`. */
export function parseDumpClassStatics(text: string): SosClassStatics {
  const out: SosClassStatics = { statics: [] };
  for (const line of text.split('\n')) {
    const name = CLASS_NAME_RE.exec(line);
    if (name !== null) {
      out.className ??= name[1] ?? '';
      continue;
    }
    const m = STATIC_ROW_RE.exec(line);
    if (m !== null) {
      out.statics.push({ type: m[1] ?? '', value: (m[2] ?? '').toLowerCase(), name: m[3] ?? '' });
    }
  }
  return out;
}
