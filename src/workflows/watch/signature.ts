// The signature of one live exception, used for `--once-per-bucket` and the `bySignature`
// counts, in the grammar `analyze` buckets dumps with (report/analyze/signature.ts, cdbh-sig-3):
// the same exception part, the same lists (the raising machinery, `RaiseException`,
// `KiUserExceptionDispatcher`, `__cxa_throw`…, looked through) and the same frame tokens, built
// from the debugger's `k` lines or SOS's `!clrstack` call sites. A watch line's `signature` and
// its dump's `bucket.signature` are therefore one grammar; they differ only where the live stack
// and the dump's walk do.
import type { AnalyzeFrame } from '../../report/analyze/analyze-record.js';
import { createSigner, type Signer, type SignedRecord } from '../../report/analyze/signature.js';

export { SIGNATURE_ALGORITHM } from '../../report/analyze/signature.js';

export interface SignatureInput {
  code: string | null;
  clrType?: string | undefined;
  /** `module!function+0x…`, `module+0x…` or an address, top first (managed: call sites). */
  frames: readonly string[];
  /** The exception record's parameters: an access violation's kind is parameter 0. */
  parameters?: readonly string[] | undefined;
}

const defaultSigner = createSigner();

/** `0xe0434352 | raise!raise_one | raise!main | raise+0x13ae`. */
export function exceptionSignature(input: SignatureInput, signer: Signer = defaultSigner): string {
  return signer.sign(signedRecord(input)).signature;
}

function signedRecord(input: SignatureInput): SignedRecord {
  const code = input.code ?? 'unknown';
  const accessType = accessKind(code, input.parameters);
  const exception = {
    code,
    name: '',
    ...(accessType === undefined ? {} : { accessType }),
  };
  if (input.clrType !== undefined && input.clrType !== '') {
    // SOS call sites have no `module!`: they are the managed stack, as `!pe` gives it to analyze.
    const managed = input.frames.filter((f) => !f.includes('!'));
    return {
      exception,
      frames: input.frames.map(frameOf),
      clrException: {
        noException: false,
        warnings: [],
        exceptions: [
          {
            address: null,
            type: input.clrType,
            message: null,
            innerException: null,
            hresult: null,
            stackTraceString: null,
            stack: managed.map((f) => ({ function: f })),
          },
        ],
      },
    };
  }
  return { exception, frames: input.frames.map(frameOf) };
}

/** Parameter 0 of an access violation or in-page error: 0 read, 1 write, 8 execute (DEP). */
function accessKind(
  code: string,
  parameters: readonly string[] | undefined,
): 'read' | 'write' | 'execute' | undefined {
  const lower = code.toLowerCase();
  if ((lower !== '0xc0000005' && lower !== '0xc0000006') || parameters?.[0] === undefined) {
    return undefined;
  }
  const kind = Number.parseInt(parameters[0], 16);
  return kind === 0 ? 'read' : kind === 1 ? 'write' : kind === 8 ? 'execute' : undefined;
}

/**
 * One `k` frame as the analyze signer reads it. Samples: `raise!raise_one+0x59` (named, offset
 * from the function), `raise+0x13ae` (offset from the module), `0x7ffa12345678` (nothing known).
 */
export function frameOf(text: string): AnalyzeFrame {
  // Sample: "KERNELBASE!RaiseException+0x46" → KERNELBASE, RaiseException, 0x46
  const named = /^([^!\s]+)!(.+?)(?:\+(0x[0-9a-f]+))?$/i.exec(text);
  if (named !== null) {
    return {
      module: named[1]!,
      function: named[2]!,
      ...(named[3] === undefined ? {} : { offset: named[3] }),
    };
  }
  // Sample: "raise+0x13ae"
  const offset = /^([^!+\s]+)\+(0x[0-9a-f]+)$/i.exec(text);
  if (offset !== null && !/^(?:0x)?[0-9a-f`]+$/i.test(offset[1]!)) {
    return { module: offset[1]!, offset: offset[2]! };
  }
  // Sample: "0x00007ffa12345678" or "00007ffa`12345678": an address in no known module.
  if (/^(?:0x)?[0-9a-f`]+$/i.test(text)) return { address: text };
  return { function: text };
}
