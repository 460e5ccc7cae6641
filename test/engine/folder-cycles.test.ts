// Imports between folders point one way: a folder cycle (a file in A imports B while a file in B
// imports A, directly or round a loop) means two folders are really one idea. This checks every
// folder of src/ (and the files directly in it).
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Folder → folders its files import (files directly in src/ are nodes of their own). */
function folderGraph(): Map<string, Set<string>> {
  const node = (file: string) => relative(SRC, dirname(file)) || relative(SRC, file);
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g)) {
      const spec = match[1] ?? match[2] ?? '';
      const from = node(file);
      const to = node(resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
      if (from === to) continue;
      const edges = graph.get(from) ?? new Set<string>();
      edges.add(to);
      graph.set(from, edges);
    }
  }
  return graph;
}

/** Every folder reachable from `start` that can reach `start` again. */
function cycleThrough(graph: Map<string, Set<string>>, start: string): string[] {
  const reach = (from: string): Set<string> => {
    const seen = new Set<string>();
    const todo = [from];
    while (todo.length > 0) {
      for (const next of graph.get(todo.pop() ?? '') ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          todo.push(next);
        }
      }
    }
    return seen;
  };
  return [...reach(start)].filter((other) => other !== start && reach(other).has(start));
}

/**
 * A folder and its own subfolder that lean on each other: the subfolder holds the parent's parts
 * (cli/commands register on cli's program and use its context and exit codes; minidump/streams
 * use the reader's byte helpers and stream context that minidump.ts hands them). Any other pair
 * in a cycle fails the test.
 */
const PARENT_AND_PARTS: readonly (readonly [string, string])[] = [
  ['cli', 'cli/commands'],
  ['minidump', 'minidump/streams'],
];

describe('folder imports', () => {
  it('form no cycle between any two folders of src', () => {
    const graph = folderGraph();
    const folders = [...graph.keys()];
    expect(folders).to.include.members([
      'engine',
      'engine/dialects',
      'engine/dialects/cdb',
      'processor',
      'minidump',
      'stackwalk',
      'symbols',
      'symbols/supplier',
      'report/inspect',
      'workflows/analyze',
    ]);
    const allowed = (a: string, b: string) =>
      PARENT_AND_PARTS.some(([x, y]) => (a === x && b === y) || (a === y && b === x));
    for (const folder of folders) {
      const others = cycleThrough(graph, folder).filter((other) => !allowed(folder, other));
      expect(others, `${folder} is in a folder cycle`).to.deep.equal([]);
    }
  });
});
