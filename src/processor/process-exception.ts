// The dump's exception record as the processor hands it on: the code named as cdb names it, an
// access violation's kind and address, the module that holds the address, the CLR's detail, and
// on x86 the addresses cut to 32 bits.
import { accessViolationDetail, exceptionName } from '../minidump/exception-codes.js';
import type { DumpException } from '../minidump/streams/exception.js';
import type { DumpModule } from '../minidump/streams/module-list.js';
import type { StackArch } from '../stackwalk/types.js';
import { clrExceptionDetail } from './clr.js';
import type { ProcessException, ProcessModule } from './process-state.js';

export function processException(
  recorded: DumpException,
  modules: readonly ProcessModule[],
  dumpModules: readonly DumpModule[],
  arch: StackArch | null,
): ProcessException {
  // An x86 process has 32-bit addresses, but the stream's fields are 64-bit and some writers
  // sign-extend them (Breakpad's minidump_32bit_crash_addr.dmp records the write address 0x45 as
  // 0xffffffff00000045): cut them to 32 bits, as Breakpad and cdb print them.
  const exception: DumpException =
    arch === 'x86'
      ? {
          ...recorded,
          address: recorded.address & 0xffff_ffffn,
          parameters: recorded.parameters.map((p) => p & 0xffff_ffffn),
        }
      : recorded;
  const out: ProcessException = {
    threadId: exception.threadId,
    code: exception.code,
    name: exceptionName(exception.code, exception.parameters),
    flags: exception.flags,
    address: exception.address,
    parameters: exception.parameters,
    nested: exception.nestedRecord !== 0n,
  };
  const av = accessViolationDetail(exception.code, exception.parameters);
  if (av) out.access = { ...(av.access ? { kind: av.access } : {}), address: av.address };
  const module = modules.find(
    (m) => exception.address >= m.base && exception.address < m.base + BigInt(m.size),
  );
  if (module) out.module = module;
  const clr = clrExceptionDetail(exception.code, exception.parameters, dumpModules);
  if (clr) out.clr = clr;
  return out;
}
