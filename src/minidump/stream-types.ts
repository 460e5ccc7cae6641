// MINIDUMP_STREAM_TYPE values and their names (minidumpapiset.h, plus the Breakpad, Crashpad and
// Wine extensions as Wine's dbghelp writes them). Unknown types are listed by number, never fatal.

export const StreamType = {
  Unused: 0,
  ThreadList: 3,
  ModuleList: 4,
  MemoryList: 5,
  Exception: 6,
  SystemInfo: 7,
  ThreadExList: 8,
  Memory64List: 9,
  CommentA: 10,
  CommentW: 11,
  HandleData: 12,
  FunctionTable: 13,
  UnloadedModuleList: 14,
  MiscInfo: 15,
  MemoryInfoList: 16,
  ThreadInfoList: 17,
  HandleOperationList: 18,
  Token: 19,
  JavaScriptData: 20,
  SystemMemoryInfo: 21,
  ProcessVmCounters: 22,
  IptTrace: 23,
  ThreadNames: 24,
  WineElfModules: 0xfff0,
  BreakpadInfo: 0x47670001,
  BreakpadAssertionInfo: 0x47670002,
  CrashpadInfo: 0x43500001,
  ChromiumStabilityReport: 0x4b6b0002,
} as const;

const NAMES = new Map<number, string>([
  [0, 'Unused'],
  [1, 'Reserved0'],
  [2, 'Reserved1'],
  [3, 'ThreadList'],
  [4, 'ModuleList'],
  [5, 'MemoryList'],
  [6, 'Exception'],
  [7, 'SystemInfo'],
  [8, 'ThreadExList'],
  [9, 'Memory64List'],
  [10, 'CommentA'],
  [11, 'CommentW'],
  [12, 'HandleData'],
  [13, 'FunctionTable'],
  [14, 'UnloadedModuleList'],
  [15, 'MiscInfo'],
  [16, 'MemoryInfoList'],
  [17, 'ThreadInfoList'],
  [18, 'HandleOperationList'],
  [19, 'Token'],
  [20, 'JavaScriptData'],
  [21, 'SystemMemoryInfo'],
  [22, 'ProcessVmCounters'],
  [23, 'IptTrace'],
  [24, 'ThreadNames'],
  [0xfff0, 'WineElfModules'],
  [0x47670001, 'BreakpadInfo'],
  [0x47670002, 'BreakpadAssertionInfo'],
  [0x47670003, 'LinuxCpuInfo'],
  [0x47670004, 'LinuxProcStatus'],
  [0x47670005, 'LinuxLsbRelease'],
  [0x47670006, 'LinuxCmdLine'],
  [0x47670007, 'LinuxEnviron'],
  [0x47670008, 'LinuxAuxv'],
  [0x47670009, 'LinuxMaps'],
  [0x4767000a, 'LinuxDsoDebug'],
  [0x43500001, 'CrashpadInfo'],
  [0x4b6b0002, 'ChromiumStabilityReport'],
  [0x4d7a0001, 'MozMacosCrashInfo'],
  [0x4d7a0002, 'MozMacosBootargs'],
  [0x4d7a0003, 'MozLinuxLimits'],
  [0x4d7a0004, 'MozSoftErrors'],
]);

/** The stream's name, `ceStream…` for Windows CE ids, or `Unknown(0x…)`. */
export function streamTypeName(type: number): string {
  const known = NAMES.get(type);
  if (known !== undefined) return known;
  if (type >= 0x8000 && type <= 0x800c) return `ceStream(0x${type.toString(16)})`;
  return `Unknown(0x${type.toString(16)})`;
}

/** Streams a dump should hold at most once; a second copy is ignored with a warning. */
export const SINGLETON_STREAMS: ReadonlySet<number> = new Set([
  StreamType.ThreadList,
  StreamType.ThreadExList,
  StreamType.ModuleList,
  StreamType.MemoryList,
  StreamType.Memory64List,
  StreamType.Exception,
  StreamType.SystemInfo,
  StreamType.MiscInfo,
  StreamType.UnloadedModuleList,
  StreamType.MemoryInfoList,
  StreamType.ThreadInfoList,
  StreamType.ThreadNames,
  StreamType.HandleData,
  StreamType.ProcessVmCounters,
]);
