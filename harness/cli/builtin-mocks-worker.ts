/**
 * The worker thread of startBuiltinMocksThread (builtin-mocks-thread.ts): starts the built-in
 * mocks, posts their log lines and then their addresses, stops them when told. An error the mocks
 * did not handle is posted too (the run counts it as it counts one in its own thread).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startBuiltinMocks, type BuiltinMockOptions } from './builtin-mocks.js';
import type { MocksThreadMessage } from './builtin-mocks-thread.js';

const port = parentPort!;
const post = (m: MocksThreadMessage): void => port.postMessage(m);
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
process.on('uncaughtException', (e) => post({ kind: 'stray', message: messageOf(e) }));
process.on('unhandledRejection', (e) => post({ kind: 'stray', message: messageOf(e) }));

try {
  const { close, ...addresses } = await startBuiltinMocks({ ...(workerData as Omit<BuiltinMockOptions, 'log'>), log: (line) => post({ kind: 'log', line }) });
  port.once('message', () => {
    close().then(
      () => post({ kind: 'closed' }),
      (e: unknown) => post({ kind: 'closed', error: messageOf(e) }),
    );
  });
  post({ kind: 'ready', mocks: addresses });
} catch (e) {
  post({ kind: 'failed', message: messageOf(e) });
}
