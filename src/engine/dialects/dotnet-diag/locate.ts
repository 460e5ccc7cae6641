// Finding cdbh-diag, the harness's client of the .NET diagnostics IPC channel (native/dotnet-diag,
// built by scripts/build-dotnet-diag.sh with the .NET SDK and two NuGet packages): `--debugger
// PATH` (the built apphost `cdbh-diag` or its `cdbh-diag.dll`), then CDB_HARNESS_DOTNET_DIAG, then
// the build output inside the package (build/dotnet-diag/out/).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DebuggerNotFoundError } from '../../../errors.js';
import { packageInfo } from '../../../package-info.js';
import { findOnPath } from '../../../platform/index.js';

/** How to run the helper: `file args… <mode> <options>`. */
export interface HelperCommand {
  file: string;
  args: string[];
  display: string;
}

function asCommand(path: string, env: NodeJS.ProcessEnv): HelperCommand | undefined {
  if (!existsSync(path)) return undefined;
  if (path.endsWith('.dll')) {
    const dotnet = findOnPath('dotnet', env) ?? 'dotnet';
    return { file: dotnet, args: [path], display: path };
  }
  return { file: path, args: [], display: path };
}

/** The helper, or undefined when none of the places has it. */
export function findDiagHelper(
  env: NodeJS.ProcessEnv = process.env,
  given?: string,
): HelperCommand | undefined {
  const candidates: string[] = [];
  if (given !== undefined) candidates.push(resolve(given));
  const fromEnv = env['CDB_HARNESS_DOTNET_DIAG'];
  if (fromEnv !== undefined && fromEnv !== '') candidates.push(resolve(fromEnv));
  const out = join(packageInfo().root, 'build', 'dotnet-diag', 'out');
  candidates.push(join(out, 'cdbh-diag'), join(out, 'cdbh-diag.dll'));
  for (const path of candidates) {
    const found = asCommand(path, env);
    if (found !== undefined) return found;
    if (path === candidates[0] && given !== undefined) break;
  }
  return undefined;
}

/** The helper, or DebuggerNotFoundError (exit 3) saying how to build it. */
export function locateDiagHelper(
  env: NodeJS.ProcessEnv = process.env,
  given?: string,
): HelperCommand {
  const found = findDiagHelper(env, given);
  if (found !== undefined) return found;
  throw new DebuggerNotFoundError(
    `cdbh-diag (the .NET diagnostics channel client) not found${given === undefined ? '' : ` at ${given}`}. ` +
      `Build it with: bash scripts/build-dotnet-diag.sh   (needs a .NET SDK; restores Microsoft.Diagnostics.NETCore.Client ` +
      `and Microsoft.Diagnostics.Tracing.TraceEvent from NuGet), or set CDB_HARNESS_DOTNET_DIAG to the built cdbh-diag.`,
  );
}
