// Preloaded into every launcher: a server that listens without naming a host (as `serve()` of
// @adcp/sdk does) listens on 127.0.0.1 instead of every interface, so the interop tests expose
// nothing beyond loopback. HTTP servers keep idle connections for a minute, so that a request
// on a reused connection never races the server closing it (Node's default is 5 s).
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' && typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
  if ('keepAliveTimeout' in this) this.keepAliveTimeout = Math.max(this.keepAliveTimeout, 60_000);
  return listen.apply(this, args);
};
