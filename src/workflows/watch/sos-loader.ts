// SOS, loaded once per cdb session for CLR exceptions. `.loadby sos clr` prints nothing on success
// and `Unable to find module 'clr'` before the runtime is loaded (test/emulator scenarios replay both replies); .NET Core/5+
// needs `.loadby sos coreclr`. When neither runtime is loaded yet, the session breaks on module
// loads (`sxe ld`) and tries again when the runtime's ModLoad line shows up, then puts module loads
// back to output-only (`sxn ld`). A plain `sxe ld` rather than `sxe ld:clr` + `sxe ld:coreclr`:
// a second `sxe ld:X` replaces the first one's module, so only one runtime could be caught.
import type { DebuggerSession } from '../../engine/debugger-session.js';
import { parseExtensionLoad } from '../../parsers/extension-load.js';

export type SosState = 'not-tried' | 'loaded' | 'waiting-for-runtime' | 'unavailable';

const RUNTIMES = ['clr', 'coreclr'] as const;

// A runtime load stop (cdb ModLoad line), e.g.
// ModLoad: 00007ff8`6b9f0000 00007ff8`6ba49000   C:\Program Files\dotnet\shared\Microsoft.NETCore.App\8.0.0\coreclr.dll
const RUNTIME_MODLOAD_RE = /^ModLoad: .*[\\/](?:clr|coreclr)\.dll\s*$/im;

export class SosLoader {
  state: SosState = 'not-tried';
  /** The runtime module SOS was loaded by. */
  runtime: string | null = null;
  lastError: string | null = null;

  constructor(
    private readonly session: DebuggerSession,
    private readonly timeoutMs: number,
  ) {}

  /** Tries each runtime; true when SOS is loaded. */
  async tryLoad(): Promise<boolean> {
    if (this.state === 'loaded') return true;
    const errors: string[] = [];
    for (const runtime of RUNTIMES) {
      const result = await this.session.execute(`.loadby sos ${runtime}`, {
        timeoutMs: this.timeoutMs,
      });
      const record = parseExtensionLoad(result.output);
      if (record.success) {
        this.state = 'loaded';
        this.runtime = runtime;
        this.lastError = null;
        return true;
      }
      errors.push(record.error ?? (result.output.trim() || `.loadby sos ${runtime} failed`));
    }
    this.lastError = errors.join('; ');
    return false;
  }

  /**
   * At session start: load SOS now, or arrange to stop when the runtime loads. Returns notes for
   * the log (why SOS is not there yet).
   */
  async prepare(): Promise<string[]> {
    if (await this.tryLoad()) return [];
    this.state = 'waiting-for-runtime';
    await this.session.execute('sxe ld', { timeoutMs: this.timeoutMs });
    return [
      `SOS not loaded yet (${this.lastError ?? 'no runtime'}); will retry when clr or coreclr loads`,
    ];
  }

  /** True when a stop's text is the runtime's module load (the `sxe ld:` break). */
  static isRuntimeLoad(stopText: string): boolean {
    return RUNTIME_MODLOAD_RE.test(stopText);
  }

  /** At a module-load stop while waiting: load SOS if this is the runtime; true when loaded now. */
  async onModuleLoad(stopText: string): Promise<boolean> {
    if (this.state !== 'waiting-for-runtime' || !SosLoader.isRuntimeLoad(stopText)) return false;
    if (!(await this.tryLoad())) return false;
    await this.session.execute('sxn ld', { timeoutMs: this.timeoutMs });
    return true;
  }

  /** At a CLR exception: SOS must be there now (the runtime raised it). */
  async ensure(): Promise<boolean> {
    if (this.state === 'loaded') return true;
    if (this.state === 'unavailable') return false;
    const ok = await this.tryLoad();
    if (!ok) this.state = 'unavailable';
    return ok;
  }
}
