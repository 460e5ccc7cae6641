// Which program wrote the dump, where the file says so (the clues below). Each clue is specific; when
// none applies the writer is left unknown rather than guessed.
import type { MinidumpHeader } from '../minidump/header.js';
import type { StreamInfo } from '../minidump/directory.js';
import { StreamType } from '../minidump/stream-types.js';
import type { MiscInfo } from '../minidump/streams/misc-info.js';
import type { SystemInfo } from '../minidump/streams/system-info.js';

export type DumpWriter = 'dbghelp' | 'wine' | 'crashpad' | 'breakpad' | 'createdump';

export interface WriterFacts {
  header: MinidumpHeader;
  streams: readonly StreamInfo[];
  miscInfo: MiscInfo | null;
  systemInfo: SystemInfo | null;
  /** True when an x86 dump holds sign-extended 32-bit addresses (0xffffffff8…). */
  signExtendedAddresses: boolean;
}

export interface WriterFingerprint {
  writer: DumpWriter;
  /** The clue, in words, for reports and tests. */
  evidence: string;
}

export function fingerprintWriter(facts: WriterFacts): WriterFingerprint | undefined {
  const { header, streams, miscInfo, systemInfo } = facts;
  const has = (type: number) => streams.some((s) => s.type === type);
  const dbgBuild = miscInfo?.dbgBuildString ?? '';
  if (has(StreamType.WineElfModules))
    return { writer: 'wine', evidence: 'Wine-private stream 0xfff0' };
  if (systemInfo?.wine)
    return { writer: 'wine', evidence: `Wine build string "${systemInfo.wine.build}"` };
  // Sample DbgBldStr values: "dbgcore.amd64,10.0.19041.1", "crashpad.amd64,0.8.0,win".
  if (/wine/i.test(dbgBuild)) return { writer: 'wine', evidence: `DbgBldStr "${dbgBuild}"` };
  if (has(StreamType.CrashpadInfo)) return { writer: 'crashpad', evidence: 'CrashpadInfo stream' };
  if (/^crashpad/i.test(dbgBuild))
    return { writer: 'crashpad', evidence: `DbgBldStr "${dbgBuild}"` };
  if (facts.signExtendedAddresses) {
    return { writer: 'createdump', evidence: 'sign-extended 32-bit addresses (.NET createdump)' };
  }
  if (/^(dbgcore|dbghelp)/i.test(dbgBuild))
    return { writer: 'dbghelp', evidence: `DbgBldStr "${dbgBuild}"` };
  if (header.implementationVersion !== 0) {
    return {
      writer: 'dbghelp',
      evidence: `DbgHelp build value 0x${header.implementationVersion.toString(16)} in the header version`,
    };
  }
  if (streams.some((s) => s.type >= 0x47670003 && s.type <= 0x4767000a)) {
    return { writer: 'breakpad', evidence: 'Breakpad Linux streams' };
  }
  return undefined;
}
