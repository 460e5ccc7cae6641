// `--queue` URLs: checked before anything connects (a typo is a usage error naming the URL), the
// password never shown, the database number read; and the probe's error names the real cause.
import { expect } from 'chai';
import { parseRedisUrl, probeRedis } from '../../src/queue/redis-url.js';
import { freePort } from '../helpers/redis-server.js';

describe('queue Redis URL', () => {
  it('reads host, port, database and credentials, hiding the password in display', () => {
    const target = parseRedisUrl('redis://worker:s3cret@10.0.0.5:6380/2');
    expect(target).to.include({ host: '10.0.0.5', port: 6380, db: 2, tls: false });
    expect(target).to.include({ username: 'worker', password: 's3cret' });
    expect(target.display).to.equal('redis://worker:***@10.0.0.5:6380/2');
    expect(parseRedisUrl('rediss://queue.example')).to.include({ port: 6379, db: 0, tls: true });
    expect(parseRedisUrl('redis://[::1]:7000').host).to.equal('::1');
  });

  it('refuses what is not a redis:// URL with a usage error that quotes it', () => {
    for (const [text, why] of [
      ['queue.example:6379', /redis:\/\/ or rediss:\/\//],
      ['http://queue.example:6379', /redis:\/\/ or rediss:\/\//],
      ['redis://queue.example:6379/db2', /database must be a number/],
      ['redis://queue.example:6379/0?timeout=5', /no query or fragment/],
      ['redis://queue.example:99999', /wants redis:\/\/HOST:PORT/],
    ] as const) {
      expect(() => parseRedisUrl(text), text).to.throw(why);
      try {
        parseRedisUrl(text);
      } catch (error) {
        expect((error as { code?: string }).code, text).to.equal('USAGE');
      }
    }
  });

  it('says why a Redis cannot be used (nothing listening: the socket error, code QUEUE)', async () => {
    const port = await freePort();
    const error = await probeRedis(parseRedisUrl(`redis://127.0.0.1:${port}`), 3_000).catch(
      (e: unknown) => e,
    );
    expect((error as { code?: string }).code).to.equal('QUEUE');
    expect(String(error)).to.match(new RegExp(`127\\.0\\.0\\.1:${port}.*ECONNREFUSED`));
  });
});
