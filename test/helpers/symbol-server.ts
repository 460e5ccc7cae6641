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
  close(): Promise<void>;
}

export type ServerMode = 'serve' | 'fail' | 'hang';

export async function startSymbolServer(
  root: string,
  mode: ServerMode = 'serve',
): Promise<SymbolServer> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    requests.push(path);
    if (mode === 'hang') return; // never answers: the client's deadline must end it
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
