// `dotnet-dump ps`: the .NET processes that expose a diagnostics port, one per line:
//  10736  dotnet  /usr/share/dotnet/dotnet  dotnet tool run dotnet-dump -- ps
import { runToFiles } from '../common/run-to-file.js';
import type { ProcessInfo, ProcessListOptions } from '../common/types.js';
import { locateDotnetTool } from './locate.js';

//  10736  dotnet  /usr/share/dotnet/dotnet  dotnet tool run dotnet-dump -- ps
const ROW_RE = /^\s*(\d+)\s+(\S+)/;

export function parseDotnetDumpPs(text: string): ProcessInfo[] {
  const rows: ProcessInfo[] = [];
  for (const line of text.split('\n')) {
    const m = ROW_RE.exec(line);
    if (m) rows.push({ pid: Number(m[1]), name: m[2] ?? '' });
  }
  return rows;
}

export async function listDotnetProcesses(options: ProcessListOptions): Promise<ProcessInfo[]> {
  const env = options.env ?? process.env;
  const tool = locateDotnetTool('dotnet-dump', env, options.debuggerPath);
  const run = await runToFiles(tool.file, [...tool.args, 'ps'], {
    env,
    timeoutMs: options.timeoutMs ?? 30_000,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(tool.cwd === undefined ? {} : { cwd: tool.cwd }),
  });
  return parseDotnetDumpPs(run.stdout);
}
