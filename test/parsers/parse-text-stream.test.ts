import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createParseTextStream,
  stripTranscriptHeader,
} from '../../src/parsers/parse-text-stream.js';
import { parseText } from '../../src/parsers/parse-text.js';
import type { Dialect, ParseEnvelope, ParsedEntry } from '../../src/parsers/records.js';
import { listTranscripts, TRANSCRIPTS_DIR } from './transcripts.js';

/** The envelope the stream gives for `text` handed over in pieces of `size` characters. */
function streamed(
  text: string,
  size: number,
  options: { command?: string; dialect?: Dialect; transcriptHeader?: boolean } = {},
): ParseEnvelope {
  const entries: ParsedEntry[] = [];
  const stream = createParseTextStream(options, (entry) => entries.push(entry));
  for (let i = 0; i < text.length; i += size) stream.write(text.slice(i, i + size));
  const events = stream.end();
  return { schemaVersion: 1, entries, events };
}

describe('parse-text-stream: parseText fed in chunks', () => {
  const all = listTranscripts();

  it('gives parseText’s entries and events for every transcript, in any chunking', () => {
    expect(all.length).to.be.greaterThan(50);
    for (const t of all) {
      for (const dialect of [undefined, 'cdb', 'winedbg'] as const) {
        const options = dialect === undefined ? {} : { dialect };
        const whole = parseText(t.body, options);
        for (const size of [1, 7, 4096]) {
          expect(streamed(t.body, size, options), `${t.name} ${dialect} ${size}`).to.deep.equal(
            whole,
          );
        }
      }
    }
  });

  it('skips the transcript header and uses its # command: when the text has no prompt', () => {
    for (const t of all) {
      const file = readFileSync(join(TRANSCRIPTS_DIR, t.name), 'utf8');
      const { body, command } = stripTranscriptHeader(file);
      const whole = parseText(body, command === undefined ? {} : { command });
      expect(streamed(file, 13, { transcriptHeader: true }), t.name).to.deep.equal(whole);
    }
  });

  it('hands each command’s entry over before the rest of the log arrives', () => {
    const seen: string[] = [];
    const stream = createParseTextStream({}, (entry) => seen.push(entry.command ?? ''));
    stream.write('0:000> k\n # Child-SP          RetAddr               Call Site\n');
    stream.write('0:000> lm\n');
    // `k` is closed by the `lm` prompt; `lm` is still open.
    expect(seen).to.deep.equal(['k']);
    stream.write('start             end                 module name\n0:000> q\n');
    expect(seen).to.deep.equal(['k', 'lm']);
    stream.end();
    expect(seen).to.deep.equal(['k', 'lm', 'q']);
  });

  it('keeps a "> cmd" log (dotnet-dump: no cdb prompt anywhere) whole to the end', () => {
    const dotnet = all.find(
      (t) => t.name === 'clrstack/dotnet-dump-setthread-clrstack-two-threads-linux.txt',
    );
    expect(dotnet, 'a dotnet-dump transcript').to.not.equal(undefined);
    const body = dotnet?.body ?? '';
    const seen: ParsedEntry[] = [];
    const stream = createParseTextStream({}, (entry) => seen.push(entry));
    stream.write(body);
    expect(seen).to.have.length(0);
    stream.end();
    expect(seen).to.deep.equal(parseText(body).entries);
    expect(seen.length).to.be.greaterThan(1);
  });
});
