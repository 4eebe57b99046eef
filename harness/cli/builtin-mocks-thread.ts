/**
 * The built-in mocks of `proto-comply run` on a worker thread of their own, so that on a machine
 * with two cores the mocks answer while the harness checks: about half of a run's CPU time is the
 * mocks'. Used where the command runs from its bundle (bin/build-cli.js defines
 * PROTO_COMPLY_BUNDLED, and bundles the thread's entry as mocks-worker.js beside the command);
 * from the sources (tests), the mocks run in the command's own thread (startBuiltinMocks).
 * Everything the run needs of the mocks is addresses and credentials, copied across.
 */
import { Worker } from 'node:worker_threads';
import type { BuiltinMockOptions, BuiltinMocks } from './builtin-mocks.js';

export type MocksThreadMessage =
  | { kind: 'log'; line: string }
  | { kind: 'ready'; mocks: Omit<BuiltinMocks, 'close'> }
  | { kind: 'failed'; message: string }
  | { kind: 'stray'; message: string }
  | { kind: 'closed'; error?: string };

/** Whether this is the bundle (a constant there), whose mocks-worker.js the thread runs. */
export const MOCKS_ON_THREAD = process.env.PROTO_COMPLY_BUNDLED === '1';

export function startBuiltinMocksThread(o: BuiltinMockOptions): Promise<BuiltinMocks> {
  const { log, ...data } = o;
  const worker = new Worker(new URL(import.meta.resolve('./mocks-worker.js')), { workerData: data });
  let closed: ((error?: string) => void) | undefined;
  const close = (): Promise<void> =>
    new Promise<string | undefined>((resolve) => {
      closed = resolve;
      worker.postMessage('close');
    }).then(async (error) => {
      await worker.terminate();
      if (error) throw new Error(error);
    });
  return new Promise((resolve, reject) => {
    worker.on('message', (m: MocksThreadMessage) => {
      if (m.kind === 'log') log(m.line);
      else if (m.kind === 'ready') resolve({ ...m.mocks, close });
      else if (m.kind === 'failed') void worker.terminate().then(() => reject(new Error(m.message)));
      // As if it had happened in this thread: the run records it as a harness error.
      else if (m.kind === 'stray') process.emit('uncaughtException', new Error(`built-in mocks: ${m.message}`));
      else closed?.(m.error);
    });
    worker.on('error', (e) => {
      reject(e);
      process.emit('uncaughtException', new Error(`built-in mocks: ${e.message}`));
    });
    worker.on('exit', (code) => {
      reject(new Error(`the built-in mocks' thread exited (${code})`));
      closed?.();
    });
  });
}
