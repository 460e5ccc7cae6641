// Every subcommand, in the order `--help` lists them. Each lives in its own file, loaded only
// when it is needed: `cdb-harness inspect` must not pay for loading the debugger engine, execa
// or node-pty (start-up time, bench/cli-start.ts), and must work where node-pty is not installed.
// The top-level `--help` loads none of them: it lists each from `listing` below, which
// test/cli/commands/index.test.ts keeps equal to what the command module itself registers.
import type { RegisterCommand } from '../command-context.js';

export interface CommandEntry {
  /** The subcommand's name as typed (`heap-trend`). */
  name: string;
  /**
   * How the top-level help lists it (the term commander prints, and the command's description),
   * so that `cdb-harness --help` loads no command module. Absent: the module is loaded for it.
   */
  listing?: { term: string; description: string };
  load(): Promise<RegisterCommand>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'analyze',
    listing: {
      term: 'analyze [options] [paths...]',
      description:
        'Batch-analyse dumps (files, folders, globs): exception, stacks, CLR exception, heap summary, buckets.',
    },
    load: async () => (await import('./analyze.js')).registerAnalyze,
  },
  {
    name: 'watch',
    listing: {
      term: 'watch [options] [program...]',
      description:
        'Attach to (or launch) a process, break on first-chance exceptions, identify each one, dump on a filter match, log every exception, and detach without harming it.',
    },
    load: async () => (await import('./watch.js')).registerWatch,
  },
  {
    name: 'heap-trend',
    listing: {
      term: 'heap-trend [options] [target]',
      description:
        'Sample the heaps of a live process over time, rank the ones that grow, flag sustained growth (leak suspects), dump at commit thresholds.',
    },
    load: async () => (await import('./heap-trend.js')).registerHeapTrend,
  },
  {
    name: 'dump',
    listing: {
      term: 'dump [options] [target] [dir]',
      description:
        'Write a dump of a running process without harming it, now or when a trigger fires (commit, CPU, exit); one or several (procdump -ma PID DIR).',
    },
    load: async () => (await import('./dump.js')).registerDump,
  },
  {
    name: 'inspect',
    listing: {
      term: 'inspect [options] [dump...]',
      description:
        'Read .dmp files directly, no debugger needed: process, exception, threads, modules, memory.',
    },
    load: async () => (await import('./inspect.js')).registerInspect,
  },
  {
    name: 'query',
    listing: {
      term: 'query [options] <outdirs...>',
      description:
        'Search analyze output folders (records.ndjson) by any frame, module, exception code or bucket.',
    },
    load: async () => (await import('./query.js')).registerQuery,
  },
  {
    name: 'signature-lists',
    listing: {
      term: 'signature-lists [options]',
      description:
        'Print the lists that steer crash signatures (skip modules, irrelevant, prefix, sentinels) and the algorithm id they give.',
    },
    load: async () => (await import('./signature-lists.js')).registerSignatureLists,
  },
  {
    name: 'parse',
    listing: {
      term: 'parse [options] <file>',
      description: 'Parse saved debugger output (or a session log) into typed JSON records.',
    },
    load: async () => (await import('./parse.js')).registerParse,
  },
  {
    name: 'umdh-diff',
    listing: {
      term: 'umdh-diff [options] <snapshots...>',
      description:
        'Compare N umdh snapshots (not just 2): per allocation stack growth, slope and consistency.',
    },
    load: async () => (await import('./umdh-diff.js')).registerUmdhDiff,
  },
  {
    name: 'gflags',
    listing: {
      term: 'gflags [options]',
      description:
        'Turn the user-mode stack-trace database (+ust, needed by umdh) on or off for an image (Windows).',
    },
    load: async () => (await import('./gflags.js')).registerGflags,
  },
  {
    name: 'worker',
    listing: {
      term: 'worker [options]',
      description:
        'Take `analyze --queue` jobs from Redis and analyse them (the jobs its engine may take).',
    },
    load: async () => (await import('./worker.js')).registerWorker,
  },
];
