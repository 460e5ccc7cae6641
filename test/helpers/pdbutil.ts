// An independent reading of a PDB, for checking ours: LLVM's llvm-pdbutil (installed with clang
// and lld) prints the GUID/age, section headers, procedures (S_GPROC32/S_LPROC32 with address
// and size) and C13 line tables. Tests compare our lookups with these, and build Breakpad .sym
// files from them the way dump_syms would (FILE, FUNC, line records).
import { spawnSync } from 'node:child_process';

export interface PdbUtilFacts {
  /** GUID (32 hex digits, as a store path spells it) + age in hex. */
  debugId: string;
  procs: { rva: number; size: number; name: string }[];
  /** Line records: start rva, the next record's start (or block end), line, file. */
  lines: { rva: number; end: number; line: number; file: string }[];
}

export function hasPdbUtil(): boolean {
  return spawnSync('llvm-pdbutil', ['--version'], { encoding: 'utf8' }).status === 0;
}

function run(args: string[]): string {
  const result = spawnSync('llvm-pdbutil', args, { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (result.status !== 0) throw new Error(`llvm-pdbutil ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

export function pdbUtilFacts(pdb: string): PdbUtilFacts {
  const summary = run(['dump', '--summary', pdb]);
  // Sample: "  GUID: {E92ADD91-690E-C93C-4C4C-44205044422E}" and "  Age: 1"
  const guid = /GUID: \{([0-9A-F-]+)\}/.exec(summary)?.[1]?.replace(/-/g, '') ?? '';
  const age = Number(/^\s*Age: (\d+)/m.exec(summary)?.[1] ?? '0');
  const headers = run(['dump', '--section-headers', pdb]);
  // Sample: "      1000 virtual address"
  const vas = [...headers.matchAll(/^\s*([0-9A-F]+) virtual address$/gm)].map((m) =>
    parseInt(m[1] ?? '0', 16),
  );
  const rvaOf = (section: number, offset: number) => (vas[section - 1] ?? 0) + offset;
  const symbols = run(['dump', '--symbols', pdb]);
  const procs: PdbUtilFacts['procs'] = [];
  // Sample: "   480 | S_LPROC32 [size = 48] `run_job`" then
  //         "         parent = 0, end = 660, addr = 0001:1536, code size = 65"
  const procRe =
    /S_[GL]PROC32 \[size = \d+\] `([^`]*)`\n\s*parent = \d+, end = \d+, addr = (\d+):(\d+), code size = (\d+)/g;
  for (const m of symbols.matchAll(procRe)) {
    procs.push({ name: m[1] ?? '', rva: rvaOf(Number(m[2]), Number(m[3])), size: Number(m[4]) });
  }
  const lineDump = run(['dump', '--l', pdb]);
  const lines: PdbUtilFacts['lines'] = [];
  let file = '';
  let module = '';
  const seen = new Set<string>();
  let block: { start: number; end: number } | undefined;
  for (const text of lineDump.split('\n')) {
    // Sample: "Mod 0003 | `/tmp/symcrash-store-d2680f.o`: "
    const mod = /^Mod (\d+) \|/.exec(text);
    if (mod) {
      module = mod[1] ?? '';
      continue;
    }
    // Sample: "/work/wt-12/test/targets/pdb/symcrash.c (MD5: 80930C5DC2612609B074958B13A57BB0)"
    const f = /^(\S.*) \((?:MD5|SHA1|SHA256|None)/.exec(text);
    if (f) {
      file = f[1] ?? '';
      continue;
    }
    if (text.startsWith('(unknown file name')) {
      file = '';
      continue;
    }
    // Sample: "  0001:00000690-000006BC, line/addr entries = 4"
    const b = /^\s+(\d+):([0-9A-F]+)-([0-9A-F]+), line\/addr entries/.exec(text);
    if (b) {
      const section = Number(b[1]);
      block = {
        start: rvaOf(section, parseInt(b[2] ?? '0', 16)),
        end: rvaOf(section, parseInt(b[3] ?? '0', 16)) + 1,
      };
      continue;
    }
    // Sample: "     3 00000690 !    4 0000069D !    5 000006A7 !    6 000006B1 ! "
    if (block && file !== '' && /^\s+\d+ [0-9A-F]{8} /.test(text)) {
      const key = `${module}:${block.start}`;
      const entries = [...text.matchAll(/(\d+) ([0-9A-F]{8}) /g)].map((m) => ({
        line: Number(m[1]),
        rva: rvaOf(1, parseInt(m[2] ?? '0', 16)),
      }));
      if (seen.has(`${key}:${entries[0]?.rva ?? 0}`)) continue;
      seen.add(`${key}:${entries[0]?.rva ?? 0}`);
      for (const e of entries) lines.push({ rva: e.rva, end: 0, line: e.line, file });
    }
  }
  lines.sort((a, b) => a.rva - b.rva);
  for (let i = 0; i < lines.length; i++) {
    const here = lines[i];
    if (here === undefined) continue;
    const proc = procs.find((p) => here.rva >= p.rva && here.rva < p.rva + p.size);
    const next = lines[i + 1]?.rva;
    here.end =
      proc === undefined
        ? (next ?? here.rva + 1)
        : Math.min(next ?? Number.MAX_SAFE_INTEGER, proc.rva + proc.size);
  }
  return { debugId: `${guid}${age.toString(16).toUpperCase()}`, procs, lines };
}

/** A Breakpad .sym text for the PDB, in the documented record format (what dump_syms writes). */
export function breakpadSymText(
  facts: PdbUtilFacts,
  pdbName: string,
  codeId: string,
  imageName: string,
): string {
  const files = [...new Set(facts.lines.map((l) => l.file))];
  const out = [
    `MODULE windows x86_64 ${facts.debugId} ${pdbName}`,
    `INFO CODE_ID ${codeId} ${imageName}`,
    ...files.map((f, i) => `FILE ${i} ${f}`),
  ];
  for (const proc of [...facts.procs].sort((a, b) => a.rva - b.rva)) {
    out.push(`FUNC ${proc.rva.toString(16)} ${proc.size.toString(16)} 0 ${proc.name}`);
    for (const l of facts.lines.filter((x) => x.rva >= proc.rva && x.rva < proc.rva + proc.size)) {
      out.push(
        `${l.rva.toString(16)} ${(l.end - l.rva).toString(16)} ${l.line} ${files.indexOf(l.file)}`,
      );
    }
  }
  for (const proc of facts.procs) {
    // At a function's first instruction the x64 return address is at [rsp]: true of every function.
    out.push(
      `STACK CFI INIT ${proc.rva.toString(16)} ${proc.size.toString(16)} .cfa: $rsp 8 + .ra: .cfa -8 + ^`,
    );
  }
  return `${out.join('\n')}\n`;
}

/** One inline site as llvm-pdbutil decodes it: ranges as rvas, line offsets as it prints them. */
export interface PdbUtilInlineSite {
  module: number;
  /** Record offset in the module stream, and the record it is nested in. */
  offset: number;
  parent: number;
  inlinee: number;
  name: string;
  ranges: { start: number; end: number; lineDelta: number }[];
}

/**
 * The S_INLINESITE records of every procedure with llvm-pdbutil's own decoding of their binary
 * annotations (`dump --symbols`), and each module's inlinee first lines (`dump --il`).
 */
export function pdbUtilInlines(pdb: string): {
  procs: { module: number; offset: number; rva: number; size: number; name: string }[];
  sites: PdbUtilInlineSite[];
  /** `module:inlinee` → first line and file. */
  inlinees: Map<string, { line: number; file: string }>;
} {
  const headers = run(['dump', '--section-headers', pdb]);
  const vas = [...headers.matchAll(/^\s*([0-9A-F]+) virtual address$/gm)].map((m) =>
    parseInt(m[1] ?? '0', 16),
  );
  const procs: ReturnType<typeof pdbUtilInlines>['procs'] = [];
  const sites: PdbUtilInlineSite[] = [];
  let module = -1;
  let site: PdbUtilInlineSite | undefined;
  let procRva = 0;
  let open: { start: number; lineDelta: number } | undefined;
  let lineDelta = 0;
  const lines = run(['dump', '--symbols', pdb]).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? '';
    // Sample: "Mod 0002 | `/tmp/inlined-01bd20.o`: "
    const mod = /^Mod (\d+) \|/.exec(text);
    if (mod) {
      module = Number(mod[1]);
      continue;
    }
    // Sample: "   224 | S_GPROC32 [size = 52] `run_chain`" then
    //         "         parent = 0, end = 680, addr = 0001:1312, code size = 54"
    const record = /^\s*(\d+) \| (S_\w+) /.exec(text);
    if (record) {
      site = undefined;
      const offset = Number(record[1]);
      const next = lines[i + 1] ?? '';
      if (/^S_[GL]PROC32$/.test(record[2] ?? '')) {
        const proc = /addr = (\d+):(\d+), code size = (\d+)/.exec(next);
        const name = /`([^`]*)`/.exec(text)?.[1] ?? '';
        procRva = (vas[Number(proc?.[1] ?? 1) - 1] ?? 0) + Number(proc?.[2] ?? 0);
        procs.push({ module, offset, rva: procRva, size: Number(proc?.[3] ?? 0), name });
      }
      // Sample: "         inlinee = 0x1000 (middle_step), parent = 224, end = 676"
      const inline = /inlinee = 0x([0-9A-F]+) \(([^)]*)\), parent = (\d+)/.exec(next);
      if (/^S_INLINESITE2?$/.test(record[2] ?? '') && inline) {
        site = {
          module,
          offset,
          parent: Number(inline[3]),
          inlinee: parseInt(inline[1] ?? '0', 16),
          name: inline[2] ?? '',
          ranges: [],
        };
        sites.push(site);
        open = undefined;
        lineDelta = 0;
        i++;
      }
      continue;
    }
    if (site === undefined) continue;
    // Samples: "           0602      line 1 (+1)", "           0311      code 0x11 (+0x11)",
    // "           0B2D      code 0x1E (+0xD) line 2 (+1)", "           0403      code end 0x21 (+0x3)"
    const line = /line (-?\d+) \(/.exec(text);
    if (line) lineDelta = Number(line[1]);
    const end = /code end 0x([0-9A-F]+)/.exec(text);
    const code = /code 0x([0-9A-F]+) \(/.exec(text);
    const at = (hex: string | undefined) => procRva + parseInt(hex ?? '0', 16);
    if (end) {
      if (open) site.ranges.push({ ...open, end: at(end[1]) });
      open = undefined;
    } else if (code) {
      if (open) site.ranges.push({ ...open, end: at(code[1]) });
      open = { start: at(code[1]), lineDelta };
      const length = /length 0x([0-9A-F]+)/.exec(text);
      if (length) {
        site.ranges.push({ ...open, end: open.start + parseInt(length[1] ?? '0', 16) });
        open = undefined;
      }
    }
  }
  const inlinees = new Map<string, { line: number; file: string }>();
  module = -1;
  for (const text of run(['dump', '--il', pdb]).split('\n')) {
    const mod = /^Mod (\d+) \|/.exec(text);
    if (mod) module = Number(mod[1]);
    // Sample: "  0x1000 |    24 | /work/test/targets/pdb/inlined.c (MD5: 97B12F095E73387A7EFDBFADB233636C)"
    const row = /^\s+0x([0-9A-F]+) \|\s+(\d+) \| (.*?) \((?:MD5|SHA1|SHA256|None)/.exec(text);
    if (row) {
      inlinees.set(`${module}:${parseInt(row[1] ?? '0', 16)}`, {
        line: Number(row[2]),
        file: row[3] ?? '',
      });
    }
  }
  return { procs, sites, inlinees };
}

/**
 * Function ids as debuggers name them, from llvm-pdbutil's `dump --ids` and `dump --types`:
 * LF_FUNC_ID's name after its scope's LF_STRING_ID (`shapes::bump`), LF_MFUNC_ID's after its
 * class's name (`shapes::Counter::add`).
 */
export function pdbUtilFunctionIds(pdb: string): Map<number, string> {
  const classes = new Map<string, string>();
  // Sample: "  0x1011 | LF_STRUCTURE [size = 60] `shapes::Counter`"
  const typeRe =
    /^\s*0x([0-9A-F]+) \| LF_(?:CLASS|STRUCTURE|UNION|INTERFACE) \[size = \d+\] `([^`]*)`/gm;
  for (const m of run(['dump', '--types', pdb]).matchAll(typeRe)) {
    classes.set(m[1] ?? '', m[2] ?? '');
  }
  const ids = run(['dump', '--ids', pdb]);
  const strings = new Map<string, string>();
  // Sample: "  0x1011 | LF_STRING_ID [size = 16] ID: <no type>, String: shapes"
  for (const m of ids.matchAll(
    /^\s*0x([0-9A-F]+) \| LF_STRING_ID \[size = \d+\] ID: [^,]*, String: (.*)$/gm,
  )) {
    strings.set(m[1] ?? '', m[2] ?? '');
  }
  const names = new Map<number, string>();
  // Samples: "  0x1014 | LF_FUNC_ID [size = 20]" + "name = bump, type = 0x1014, parent scope = 0x1011"
  //          "  0x1015 | LF_MFUNC_ID [size = 16]" + "name = add, type = 0x1016, class type = 0x1011"
  const funcRe =
    /^\s*0x([0-9A-F]+) \| LF_(M?)FUNC_ID \[size = \d+\]\n\s*name = (.*), type = [^,]*, (?:parent scope|class type) = (?:0x([0-9A-F]+)|<no type>)$/gm;
  for (const m of ids.matchAll(funcRe)) {
    const scope = m[4] === undefined ? undefined : (m[2] === 'M' ? classes : strings).get(m[4]);
    const name = m[3] ?? '';
    names.set(parseInt(m[1] ?? '0', 16), scope ? `${scope}::${name}` : name);
  }
  return names;
}
