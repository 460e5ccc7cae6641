// The package entry (src/index.ts → dist/src/index.js) is what library users import: it must
// expose the workflows, parsers, reader and engine, and they must work from there.
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as api from '../../src/index.js';
import { REPO_ROOT } from '../helpers/wine.js';

describe('library entry point', () => {
  it('exports one function per job, plus the engine, the reader and the parsers', () => {
    for (const name of [
      'analyzeDumps',
      'watch',
      'dumpProcess',
      'runHeapTrend',
      'runUmdhDiff',
      'DebuggerSession',
      'inspectDump',
      'openMinidump',
      'parseText',
      'parseHeapSummary',
      'validate',
    ] as const) {
      expect(api[name], name).to.be.a('function');
    }
  });

  it('reads a bundled example dump and validates it against the inspect schema', async () => {
    const dir = join(REPO_ROOT, 'examples', 'dumps');
    const file = readdirSync(dir).find((f) => f.startsWith('av-write'));
    expect(file).to.be.a('string');
    const dump = await api.inspectDump(join(dir, file ?? ''));
    expect(dump.ok).to.equal(true);
    if (!dump.ok) return;
    expect(dump.exception?.code).to.equal('0xc0000005');
    expect(api.validate('inspect', { schemaVersion: 1, dumps: [dump] }).errors).to.deep.equal([]);
  });

  it('parses a cdb log into the parse envelope', () => {
    // Prompt and banner lines from events/clr-e0434352-first-and-second-chance-net8-x64.txt.
    const envelope = api.parseText(
      [
        '0:000> g',
        '(5fc4.6320): CLR exception - code e0434352 (!!! second chance !!!)',
        '0:000> ',
      ].join('\n'),
    );
    expect(envelope.schemaVersion).to.equal(1);
    expect(envelope.events.map((e) => [e.code, e.chance])).to.deep.equal([
      ['0xe0434352', 'second'],
    ]);
    expect(api.validate('parseEnvelope', envelope).ok).to.equal(true);
  });
});
