// Build step (npm run build, after tsc and the validators): the CLI as esbuild's ESM chunks, so
// that an `analyze` run loads ~45 files instead of ~170 modules of ours and ~30 of its
// dependencies'. Node resolves, reads and compiles every ES module on its own, and that
// per-module cost was most of a short run: `analyze` of one dump took 0.47 s CPU, 0.37 s bundled
// (farm-bench, 12 alternating pairs, medians; bench/cli-start.ts prints the start-up of every
// command against `node -e 0`). The commands are still loaded only when named: every `import()`
// of src/cli/commands/index.ts becomes a chunk of its own (esbuild's code splitting), so
// `inspect` still loads no debugger engine. Without splitting (one file) the debugger and queue
// packages became static imports loaded by every run: 2.7x the CPU of a one-dump analyze.
//   node --import tsx scripts/build-cli-bundle.ts
// It bundles the tsc output (dist/src/cli/main.js, the very code the tests run), so the CLI
// behaves as from source. The library entry (dist/src/index.js) is an entry point of the same
// build: the library and the CLI share one set of chunks, and the package ships that one copy of
// the code (package.json "exports" points at dist/bundle/cli/index.js; of dist/src only the type
// declarations are shipped).
import { build, type Metafile, type Plugin } from 'esbuild';
import { createRequire } from 'node:module';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
/** bin/cdb-harness.js loads OUT/main.js. */
const OUT = join(root, 'dist', 'bundle', 'cli');

/**
 * Dependencies inlined into the bundle: small, pure JavaScript, and needed by every run
 * (commander) or by `analyze`'s input scan (tinyglobby and what it uses). Everything else stays
 * an ordinary import from node_modules, loaded only by the commands that use it: the debugger
 * side (execa, node-pty: native and optional), the queue (bullmq, ioredis: large, and they read
 * their own files), and ajv (only when the built validators are missing).
 */
const INLINED = new Set(['commander', 'tinyglobby', 'fdir', 'picomatch']);
const EXTERNAL = ['ajv', 'ajv/*', 'bullmq', 'execa', 'ioredis', '@lydell/node-pty', 'node-pty'];

/**
 * fdir's ES module build loads picomatch at its start through a `createRequire` esbuild cannot
 * follow (https://github.com/thecodrr/fdir, src/builder/index.ts: an optional peer), so a bundle
 * holding picomatch for tinyglobby loaded a second copy from node_modules on every run (5 files,
 * ~5 ms CPU). Its CommonJS build says `require("picomatch")`, which the bundle serves itself.
 */
const fdirCommonJs: Plugin = {
  name: 'fdir-commonjs',
  setup(build) {
    const requireHere = createRequire(import.meta.url);
    build.onResolve({ filter: /^fdir$/ }, () => ({ path: requireHere.resolve('fdir') }));
  },
};

/**
 * Threads start from a file of their own (`new Worker(new URL('./x-thread.js', import.meta.url))`):
 * each such file becomes an entry point of the same name, in the same folder as every chunk, so
 * the URL resolves the same from whichever chunk holds the call.
 */
function workerEntries(compiled: string): Record<string, string> {
  const entries: Record<string, string> = {};
  // Sample: return new Worker(new URL('./analyze-thread.js', here), options);
  const pattern = /new Worker\(new URL\('\.\/([\w-]+)\.js'/g;
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.js')) {
        for (const match of readFileSync(path, 'utf8').matchAll(pattern)) {
          entries[match[1]!] = join(dirname(path), `${match[1]!}.js`);
        }
      }
    }
  };
  visit(compiled);
  return entries;
}

/** The npm packages a bundle took in (node_modules/NAME/… or node_modules/@scope/NAME/…). */
function inlinedPackages(metafile: Metafile): Set<string> {
  const names = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    // Sample: node_modules/picomatch/lib/parse.js
    const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) names.add(match[1]!);
  }
  return names;
}

/**
 * The bundle's files sit as deep under the package root as dist/src/<folder>/ does, because
 * three run-time lookups go up from their own file by a fixed count: schemas/ and
 * dist/validators/ (src/report/schemas.ts), dbgscripts/ (src/workflows/analyze/triage-script.ts).
 * package.json is found by walking up (src/package-info.ts).
 */
function checkLayout(): void {
  for (const [what, path] of [
    ['dist/validators', resolve(OUT, '../../validators')],
    ['schemas', resolve(OUT, '../../../schemas')],
    ['dbgscripts', resolve(OUT, '../../../dbgscripts')],
  ] as const) {
    if (!existsSync(path)) {
      throw new Error(`${what} is not where the bundled CLI looks for it (${path})`);
    }
  }
}

export interface BundleOptions {
  /** tsc's output folder (dist/src): `cli/main.js` in it is the entry. */
  compiled: string;
  /** Where the bundle goes (emptied first). */
  out: string;
}

/**
 * Bundles `compiled`/cli/main.js, the library entry `compiled`/index.js and every thread entry into
 * `out`; returns the file names.
 */
export async function bundleCli({ compiled, out }: BundleOptions): Promise<string[]> {
  const entry = join(compiled, 'cli', 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run tsc (npm run build) first`);
  const library = join(compiled, 'index.js');
  rmSync(out, { recursive: true, force: true });
  const result = await build({
    entryPoints: {
      main: entry,
      ...(existsSync(library) ? { index: library } : {}),
      ...workerEntries(compiled),
    },
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    // Not minified: minified it started no faster (analyze of one dump, farm-bench, 20
    // alternating pairs: 1.00x), and stack traces and CPU profiles keep readable lines.
    // Licence comments of the inlined packages are kept (esbuild's default for a bundle).
    // commander is CommonJS: its require('node:events') needs a real `require` in an ES module.
    banner: {
      js: "import{createRequire as __cdbhCreateRequire}from'node:module';const require=__cdbhCreateRequire(import.meta.url);",
    },
    plugins: [fdirCommonJs],
    metafile: true,
    logLevel: 'warning',
  });
  const unexpected = [...inlinedPackages(result.metafile)].filter((name) => !INLINED.has(name));
  if (unexpected.length > 0) {
    rmSync(out, { recursive: true, force: true });
    throw new Error(
      `the CLI bundle took in ${unexpected.join(', ')}: add each to INLINED (small, pure JS) or ` +
        `EXTERNAL in scripts/build-cli-bundle.ts`,
    );
  }
  return Object.keys(result.metafile.outputs).map((file) => relative(out, resolve(file)));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const files = await bundleCli({ compiled: join(root, 'dist', 'src'), out: OUT });
  checkLayout();
  console.log(`CLI bundle: ${files.length} files in ${relative(root, OUT)}`);
}
