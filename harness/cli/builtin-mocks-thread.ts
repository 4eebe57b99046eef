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
  let exited = false;
  const close = (): Promise<void> =>
    new Promise<string | undefined>((resolve) => {
      if (exited) return resolve(undefined);
      closed = resolve;
      worker.postMessage('close');
    }).then(async (error) => {
      await worker.terminate();
      if (error) throw new Error(error);
    });
  let ready = false;
  return new Promise((resolve, reject) => {
    // A thread that cannot run (an option of this process that a worker refuses): the mocks in this thread.
    const inThisThread = (): void => {
      if (ready) return;
      ready = true;
      void import('./builtin-mocks.js').then((m) => m.startBuiltinMocks(o)).then(resolve, reject);
    };
    worker.on('message', (m: MocksThreadMessage) => {
      if (m.kind === 'log') log(m.line);
      else if (m.kind === 'ready') {
        ready = true;
        resolve({ ...m.mocks, close });
      } else if (m.kind === 'failed') {
        ready = true;
        void worker.terminate().then(() => reject(new Error(m.message)));
      }
      // As if it had happened in this thread: the run records it as a harness error.
      else if (m.kind === 'stray') process.emit('uncaughtException', new Error(`built-in mocks: ${m.message}`));
      else closed?.(m.error);
    });
    worker.on('error', (e) => {
      if (!ready) return inThisThread();
      process.emit('uncaughtException', new Error(`built-in mocks: ${e.message}`));
    });
    worker.on('exit', () => {
      exited = true;
      inThisThread();
      closed?.();
    });
  });
}
