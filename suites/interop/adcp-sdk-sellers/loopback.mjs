// Preloaded into every launcher: a server that listens without naming a host (as `serve()` of
// @adcp/sdk does) listens on 127.0.0.1 instead of every interface, so the interop tests expose
// nothing beyond loopback. When it is listening, the launcher's `announce` line tells the parent.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' && typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
  return listen.apply(this, args);
};
