import { expect } from 'chai';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  findDotnetTool,
  locateDotnetTool,
} from '../../../../src/engine/dialects/dotnet-dump/locate.js';
import { getDialect, isDialectName } from '../../../../src/engine/dialects/index.js';
import { makeTempDir } from '../../../helpers/temp-dir.js';

describe('dotnet-dump dialect: finding the tool', () => {
  it('is one registry line, and never a candidate for Windows dumps', () => {
    expect(isDialectName('dotnet-dump')).to.equal(true);
    const dialect = getDialect('dotnet-dump');
    expect(dialect.abilities.windowsTargets).to.equal(false);
    expect(dialect.heapSampling?.style).to.equal('dump-per-sample');
    expect(() => dialect.launchArgs({ kind: 'attach', pid: 1 }, {})).to.throw(/cannot attach/);
  });

  it('a missing tool says how to install it', () => {
    const empty = makeTempDir('no-tools');
    const env = { PATH: empty, HOME: empty };
    expect(findDotnetTool('dotnet-dump', env, undefined, empty)).to.equal(undefined);
    expect(() => locateDotnetTool('dotnet-dump', env, join(empty, 'nope'))).to.throw(
      /dotnet tool install -g dotnet-dump/,
    );
  });

  it('finds it on PATH, then in ~/.dotnet/tools, then through a local tool manifest', () => {
    const root = makeTempDir('tools');
    const bin = join(root, 'bin');
    const home = join(root, 'home');
    const project = join(root, 'project', 'sub');
    mkdirSync(bin, { recursive: true });
    mkdirSync(join(home, '.dotnet', 'tools'), { recursive: true });
    mkdirSync(join(root, 'project', '.config'), { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(
      join(root, 'project', '.config', 'dotnet-tools.json'),
      JSON.stringify({
        version: 1,
        isRoot: true,
        tools: { 'dotnet-dump': { version: '10.0.750501', commands: ['dotnet-dump'] } },
      }),
    );
    const local = findDotnetTool('dotnet-dump', { PATH: '', HOME: home }, undefined, project);
    expect(local?.args).to.deep.equal(['tool', 'run', 'dotnet-dump', '--']);
    expect(local?.cwd).to.equal(join(root, 'project'));
    // A manifest that does not list the tool is no local tool.
    expect(findDotnetTool('dotnet-gcdump', { PATH: '', HOME: home }, undefined, project)).to.equal(
      undefined,
    );

    const global = join(home, '.dotnet', 'tools', 'dotnet-dump');
    writeFileSync(global, '#!/bin/sh\n');
    chmodSync(global, 0o755);
    expect(
      findDotnetTool('dotnet-dump', { PATH: '', HOME: home }, undefined, project)?.file,
    ).to.equal(global);

    const onPath = join(bin, 'dotnet-dump');
    writeFileSync(onPath, '#!/bin/sh\n');
    chmodSync(onPath, 0o755);
    expect(
      findDotnetTool('dotnet-dump', { PATH: bin, HOME: home }, undefined, project)?.file,
    ).to.equal(onPath);
    // --debugger wins, and a folder means its manifest.
    expect(
      findDotnetTool('dotnet-dump', { PATH: bin, HOME: home }, join(root, 'project'))?.cwd,
    ).to.equal(join(root, 'project'));
  });
});
