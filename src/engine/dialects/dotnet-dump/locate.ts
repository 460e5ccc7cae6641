// Finding dotnet-dump (and its sibling dotnet-gcdump), in the order a .NET user installs them:
// `--debugger PATH` (the tool itself, or a folder whose dotnet-tools.json manifest lists it: a
// local tool), then PATH, then the global tools folder (~/.dotnet/tools, where
// `dotnet tool install -g dotnet-dump` puts it), then a local tool manifest
// (.config/dotnet-tools.json or dotnet-tools.json) in the working folder or above it, run as
// `dotnet tool run dotnet-dump` from that folder. The manifest format:
// https://learn.microsoft.com/dotnet/core/tools/local-tools-how-to-use
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DebuggerNotFoundError } from '../../../errors.js';
import { findOnPath } from '../../../platform/index.js';

export type DotnetToolName = 'dotnet-dump' | 'dotnet-gcdump';

/** How to run the tool: `file args… <tool arguments>`, from `cwd` when it is a local tool. */
export interface ToolCommand {
  file: string;
  args: string[];
  cwd?: string;
  /** For messages: where it was found. */
  display: string;
}

const MANIFEST_NAMES = ['.config/dotnet-tools.json', 'dotnet-tools.json'];

function manifestLists(manifest: string, tool: DotnetToolName): boolean {
  try {
    const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as {
      tools?: Record<string, unknown>;
    };
    return parsed.tools !== undefined && Object.hasOwn(parsed.tools, tool);
  } catch {
    return false;
  }
}

/** A manifest in `dir` that lists the tool, as a local-tool command run from `dir`. */
function localTool(dir: string, tool: DotnetToolName, env: NodeJS.ProcessEnv): ToolCommand | null {
  for (const name of MANIFEST_NAMES) {
    const manifest = join(dir, name);
    if (existsSync(manifest) && manifestLists(manifest, tool)) {
      const dotnet = findOnPath('dotnet', env) ?? 'dotnet';
      return {
        file: dotnet,
        args: ['tool', 'run', tool, '--'],
        cwd: dir,
        display: `local tool (${manifest})`,
      };
    }
  }
  return null;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The tool, or undefined when none of the places has it. */
export function findDotnetTool(
  tool: DotnetToolName,
  env: NodeJS.ProcessEnv = process.env,
  given?: string,
  cwd: string = process.cwd(),
): ToolCommand | undefined {
  if (given !== undefined) {
    const path = resolve(given);
    if (isDirectory(path)) return localTool(path, tool, env) ?? undefined;
    // --debugger names dotnet-dump; dotnet-gcdump is looked for beside it.
    if (tool !== 'dotnet-dump') {
      const sibling = join(dirname(path), tool);
      if (existsSync(sibling)) return { file: sibling, args: [], display: sibling };
    } else if (existsSync(path)) return { file: path, args: [], display: path };
  }
  const onPath = findOnPath(tool, env);
  if (onPath !== undefined) return { file: onPath, args: [], display: onPath };
  const home = env['HOME'] ?? homedir();
  const global = join(env['DOTNET_CLI_HOME'] ?? home, '.dotnet', 'tools', tool);
  if (existsSync(global)) return { file: global, args: [], display: global };
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const local = localTool(dir, tool, env);
    if (local !== null) return local;
    if (dirname(dir) === dir) break;
  }
  return undefined;
}

/** The tool, or DebuggerNotFoundError saying where it was looked for and how to install it. */
export function locateDotnetTool(
  tool: DotnetToolName,
  env: NodeJS.ProcessEnv = process.env,
  given?: string,
): ToolCommand {
  const found = findDotnetTool(tool, env, given);
  if (found !== undefined) return found;
  throw new DebuggerNotFoundError(
    `${tool} not found${given === undefined ? '' : ` at ${given}`} (looked on PATH, in ~/.dotnet/tools and for a local tool manifest). ` +
      `Install it with: dotnet tool install -g ${tool}   (then add ~/.dotnet/tools to PATH), ` +
      `or as a local tool: dotnet new tool-manifest && dotnet tool install ${tool}; ` +
      `or point --debugger at it.`,
  );
}
