// A real HTTP symbol server for tests: node:http on 127.0.0.1 and a random port, serving a
// folder laid out as a symbol store (`NAME.pdb/GUIDAGE/NAME.pdb`, `.pd_`, `.sym`). It records
// every request path so tests can prove what was (and was not) downloaded, and can misbehave on
// purpose: answer 500, or never answer (for deadline tests).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { join, normalize, sep } from 'node:path';

export interface SymbolServer {
  url: string;
  /** Request paths in arrival order (`/symcrash.pdb/ID/symcrash.pd_`). */
  requests: string[];
  /** The same as sent on the wire, before percent-decoding (`/a%20b.pdb/ID/a%20b.pdb`). */
  rawRequests: string[];
  close(): Promise<void>;
}

/**
 * serve: files from the folder; fail: HTTP 500; hang: never answers; any: 200 and a small body
 * for every path (so a client writes whatever it asked for into its cache); endless: 200 and a
 * body that never ends (a slow drip of bytes, for memory bounds).
 */
export type ServerMode = 'serve' | 'fail' | 'hang' | 'any' | 'endless';

export async function startSymbolServer(
  root: string,
  mode: ServerMode = 'serve',
): Promise<SymbolServer> {
  const requests: string[] = [];
  const rawRequests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const raw = (req.url ?? '/').split('?')[0] ?? '/';
    let path = raw;
    try {
      path = decodeURIComponent(raw);
    } catch {
      // A malformed escape: recorded as sent.
    }
    requests.push(path);
    rawRequests.push(req.url ?? '/');
    if (mode === 'hang') return; // never answers: the client's deadline must end it
    if (mode === 'any') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end('not a symbol file');
      return;
    }
    if (mode === 'endless') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 0x41);
      const drip = () => {
        // Write while the socket takes it; wait for drain otherwise (the client sets the pace).
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', drip);
      };
      drip();
      return;
    }
    if (mode === 'fail') {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('store is down');
      return;
    }
    const file = normalize(join(root, path));
    if (!file.startsWith(normalize(root) + sep)) {
      res.writeHead(403).end();
      return;
    }
    let size: number;
    try {
      const info = statSync(file);
      if (!info.isFile()) throw new Error('not a file');
      size = info.size;
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
    createReadStream(file).pipe(res);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    rawRequests,
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}

/** A port nothing listens on (bound, then released): connecting to it is refused. */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}
