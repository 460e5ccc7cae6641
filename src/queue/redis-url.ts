// `--queue redis://HOST:PORT[/DB]`: the one Redis the producer, the collector and every worker
// share. The URL is checked before anything connects (a typo is a usage error, exit 2), then a
// probe with a deadline says whether a Redis answers there (unreachable, wrong password, not Redis:
// a QueueError, exit 1). After that first answer the connections BullMQ makes retry for ever with
// a capped backoff, so a Redis restart is waited out instead of ending the run.
import { Redis } from 'ioredis';
import { errorMessage, QueueError, UsageError } from '../errors.js';

export interface RedisTarget {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  tls: boolean;
  /** The URL with any password replaced by `***`, for messages and summaries. */
  display: string;
}

/** Default Redis port (https://redis.io/docs/latest/operate/oss_and_stack/management/config/). */
const DEFAULT_PORT = 6379;

export function parseRedisUrl(text: string): RedisTarget {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new UsageError(`--queue wants redis://HOST:PORT[/DB], got "${text}"`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new UsageError(
      `--queue wants a redis:// or rediss:// URL (redis://HOST:PORT[/DB]), got "${text}"`,
    );
  }
  if (url.hostname === '') throw new UsageError(`--queue URL has no host: "${text}"`);
  const port = url.port === '' ? DEFAULT_PORT : Number(url.port);
  // Sample path: "/2" (database 2); "" and "/" mean database 0.
  const dbText = url.pathname.replace(/^\//, '');
  if (dbText !== '' && !/^\d{1,2}$/.test(dbText)) {
    throw new UsageError(
      `--queue URL's database must be a number (redis://HOST:PORT/2), got "${text}"`,
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError(`--queue URL takes no query or fragment: "${text}"`);
  }
  const target: RedisTarget = {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    db: dbText === '' ? 0 : Number(dbText),
    tls: url.protocol === 'rediss:',
    display: url.password === '' ? url.href : url.href.replace(`:${url.password}@`, ':***@'),
  };
  if (url.username !== '') target.username = decodeURIComponent(url.username);
  if (url.password !== '') target.password = decodeURIComponent(url.password);
  return target;
}

/** Longest wait between reconnect attempts once connected (Redis restarting, a network blip). */
const MAX_RECONNECT_DELAY_MS = 2_000;

export interface ConnectionSettings {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  tls?: object;
  maxRetriesPerRequest: null;
  retryStrategy: (times: number) => number;
}

/** ioredis options for BullMQ's long-lived connections: wait out outages, never give up. */
export function connectionOptions(target: RedisTarget): ConnectionSettings {
  return {
    host: target.host,
    port: target.port,
    db: target.db,
    ...(target.username === undefined ? {} : { username: target.username }),
    ...(target.password === undefined ? {} : { password: target.password }),
    ...(target.tls ? { tls: {} } : {}),
    // BullMQ requires null for workers: a blocked command waits for the reconnect instead of
    // failing after N retries (https://docs.bullmq.io/guide/going-to-production).
    maxRetriesPerRequest: null,
    retryStrategy: (times: number) =>
      Math.min(100 * 2 ** Math.min(times, 5), MAX_RECONNECT_DELAY_MS),
  };
}

/**
 * One connection attempt with a deadline, before anything else is done: PING, and the server's
 * version (BullMQ needs Redis 5 or later). Fails with a QueueError saying what went wrong.
 */
export async function probeRedis(
  target: RedisTarget,
  deadlineMs = 5_000,
): Promise<{ version: string }> {
  const client = new Redis({
    ...connectionOptions(target),
    lazyConnect: true,
    connectTimeout: deadlineMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // ioredis reports the socket's own error (ECONNREFUSED, ENOTFOUND) as an event; the promise
  // only says "Connection is closed.", so the event's message is the one shown.
  let socketError: unknown;
  client.on('error', (error) => (socketError ??= error));
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = (async () => {
      await client.connect();
      await client.ping();
      return await client.info('server');
    })();
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${Math.round(deadlineMs / 1000)} s`)),
        deadlineMs,
      );
    });
    const info = await Promise.race([answer, timeout]);
    // Sample INFO line: "redis_version:7.0.15"
    const version = /^redis_version:(\S+)/m.exec(info)?.[1] ?? 'unknown';
    if (Number.parseInt(version, 10) < 5) {
      throw new QueueError(`the queue needs Redis 5 or later; ${target.display} runs ${version}`);
    }
    return { version };
  } catch (error) {
    if (error instanceof QueueError) throw error;
    const reason = errorMessage(socketError ?? error);
    throw new QueueError(`cannot use the queue at ${target.display}: ${reason}`, { cause: error });
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}
