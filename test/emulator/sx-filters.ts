// Exception and event filters (`sxe`/`sxd`/`sxn`/`sxi`). Defaults and names are those of the full
// `sx` listing in dump-sos-sx/sx-full-listing-ld-only-kernel32-x64.txt (except `ld`, which that
// session had switched to break; cdb's default for it is output). A first-chance exception under
// `sxd` is printed and passes; under `sxi` nothing is printed (Microsoft's "Controlling
// Exceptions and Events", https://learn.microsoft.com/windows-hardware/drivers/debugger/
// controlling-exceptions-and-events).

/** break = sxe, second = sxd ("second-chance break"), output = sxn, ignore = sxi. */
export type FilterState = 'break' | 'second' | 'output' | 'ignore';

const DEFAULTS: Record<string, FilterState> = {
  ct: 'ignore',
  et: 'ignore',
  cpr: 'ignore',
  epr: 'break',
  ld: 'output',
  ud: 'ignore',
  ser: 'ignore',
  ibp: 'break',
  iml: 'ignore',
  out: 'output',
  av: 'break',
  asrt: 'break',
  aph: 'break',
  bpe: 'break',
  eh: 'second',
  clr: 'second',
  clrn: 'second',
  cce: 'break',
  dm: 'break',
  gp: 'break',
  ii: 'second',
  ip: 'break',
  dz: 'break',
  iov: 'break',
  ch: 'break',
  lsq: 'break',
  isc: 'break',
  '3c': 'second',
  svh: 'break',
  sse: 'break',
  sbo: 'break',
  sov: 'break',
  vs: 'break',
  vcpp: 'ignore',
  wkd: 'break',
  rto: 'second',
  rtt: 'second',
  wob: 'break',
  wos: 'break',
  '*': 'second',
};

/** Exception code -> filter name, from the descriptions in the same `sx` listing. */
const CODE_FILTERS: Record<string, string> = {
  c0000005: 'av',
  '80000003': 'bpe',
  e06d7363: 'eh',
  e0434352: 'clr',
  e0434f4d: 'clr',
  '04242420': 'clrn',
  c0000094: 'dz',
  c0000095: 'iov',
  c00000fd: 'sov',
  c000001d: 'ii',
  '80000001': 'gp',
  '80000004': 'sse',
  '80000007': 'wkd',
  c0000409: 'sbo',
  '406d1388': 'vcpp',
};

export function filterForCode(code: string): string {
  return CODE_FILTERS[code.toLowerCase().padStart(8, '0')] ?? '*';
}

// "ModLoad: 00007ff8`0ecc0000 00007ff8`0ee79000   C:\Program Files\dotnet\...\clrjit.dll"
const MOD_LOAD = /^ModLoad: +\S+ +\S+ +(.*)$/;

export class SxFilters {
  private readonly states = new Map<string, FilterState>(Object.entries(DEFAULTS));
  /** `sxe ld:clrjit` breaks only for these modules ("(only break for kernel32)" in `sx`). */
  private loadModules: string[] = [];

  get(filter: string): FilterState {
    return this.states.get(filter) ?? this.states.get('*') ?? 'second';
  }

  /**
   * Apply one `sx?` command. Returns false when the command is not an sx setter. Arguments such as
   * `-c "cmd"` and `ld:module` qualifiers are accepted and reduced to the filter name.
   */
  apply(command: string): boolean {
    // "sxe clr", "sxd -c \"k\" av", "sxe ld:clrjit", "sxi e0434352", "sxd *"
    const match = /^sx([edni])\s+(.*)$/i.exec(command);
    if (match === null) return false;
    const state: FilterState = ({ e: 'break', d: 'second', n: 'output', i: 'ignore' } as const)[
      (match[1] ?? 'e').toLowerCase() as 'e' | 'd' | 'n' | 'i'
    ];
    const words = (match[2] ?? '')
      .replace(/-c2?\s+"(?:[^"\\]|\\.)*"/g, '')
      .trim()
      .split(/\s+/);
    const [rawName = '', module] = (words[words.length - 1] ?? '').split(':');
    const name = rawName.toLowerCase();
    if (name === '') return false;
    if (name === 'ld') this.loadModules = module === undefined ? [] : [module.toLowerCase()];
    // A bare code ("e0434352", "0xc0000005") names the filter for that code.
    const code = /^(?:0x)?([0-9a-f]{1,8})$/i.exec(name);
    const filter = code !== null && !(name in DEFAULTS) ? filterForCode(code[1] ?? '') : name;
    this.states.set(filter, state);
    return true;
  }

  /** Whether a load event with these banner lines stops, given `ld` is set to break. */
  loadMatches(lines: readonly string[]): boolean {
    if (this.loadModules.length === 0) return true;
    return lines.some((line) => {
      const path = MOD_LOAD.exec(line)?.[1];
      if (path === undefined) return false;
      const base = (path.split(/[\\/]/).pop() ?? '').toLowerCase();
      return this.loadModules.some((m) => base === m || base.replace(/\.[^.]*$/, '') === m);
    });
  }
}
