import net from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The folder of the installed @adcp/sdk (its examples/ and dist/ live there). */
export const sdkDir = dirname(require.resolve('@adcp/sdk/package.json'));

/** The path of one example shipped with @adcp/sdk. */
export const example = (name) => join(sdkDir, 'examples', name);

/** A free loopback port (the examples read their own URL from the port they are given). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once something answers HTTP on `url` (any status), or rejects after `timeoutMs`. */
export async function waitForHttp(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(url, { method: 'GET', signal: AbortSignal.timeout(1000) });
      return;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`nothing answered on ${url} within ${timeoutMs} ms: ${e}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The one line the parent waits for: `READY {json}`. */
export function announce(facts) {
  process.stdout.write(`READY ${JSON.stringify(facts)}\n`);
}
