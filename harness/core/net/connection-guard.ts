/**
 * A connection cap that keeps a server answering its legitimate clients while abusive ones hold
 * connections. Node's `server.maxConnections` refuses the newest connection once the cap is
 * reached, so a few hundred slow clients (headers or bodies trickling in) lock everyone else out
 * until the timeouts cut them off. Here the newcomer is always taken and, over the cap, the
 * connection that costs the least to drop is closed instead: first one idle between requests,
 * then one still sending its headers, then one still sending its body, oldest first. A request
 * whose body has arrived (the server is working on it or answering) is never dropped: when every
 * connection is such a request, the newcomer is refused.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Where a connection is: the order is the order in which the guard drops them. */
type Phase = 'idle' | 'headers' | 'body' | 'working';
const DROP_ORDER: readonly Phase[] = ['idle', 'headers', 'body'];

export interface ConnectionGuard {
  /** Open connections now. */
  readonly size: number;
  /** Connections dropped (or newcomers refused) to stay within the cap, since the start. */
  readonly dropped: number;
}

/** Caps `server` at `max` open connections by dropping the cheapest one (see the file header). */
export function guardConnections(server: Server, max: number): ConnectionGuard {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`the connection cap must be a positive integer, not ${max}`);
  // Insertion order is age order; a connection's phase changes in place.
  const open = new Map<Socket, Phase>();
  let dropped = 0;

  server.on('connection', (socket: Socket) => {
    open.set(socket, 'headers');
    socket.once('close', () => open.delete(socket));
    if (open.size <= max) return;
    for (const phase of DROP_ORDER)
      for (const [s, p] of open)
        if (p === phase && s !== socket) {
          dropped++;
          open.delete(s);
          s.destroy();
          return;
        }
    dropped++;
    open.delete(socket);
    socket.destroy();
  });

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    if (!open.has(socket)) return;
    const bodyless = req.headers['transfer-encoding'] === undefined && Number(req.headers['content-length'] ?? 0) === 0;
    open.set(socket, bodyless || req.complete ? 'working' : 'body');
    const working = () => open.has(socket) && open.set(socket, 'working');
    req.once('end', working);
    res.once('finish', () => {
      req.off('end', working);
      if (open.has(socket)) open.set(socket, 'idle');
    });
  });

  return {
    get size() {
      return open.size;
    },
    get dropped() {
      return dropped;
    },
  };
}
