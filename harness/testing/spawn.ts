/** Test support: run a child process asynchronously, bounded by a timeout (SIGKILL), capturing its output. */
import { spawn, type SpawnOptions } from 'node:child_process';

export interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Asynchronous on purpose: mocks living in the test process must keep answering meanwhile. */
export function runChild(command: string, args: string[], options: SpawnOptions & { timeoutMs: number }): Promise<ChildResult> {
  const { timeoutMs, ...spawnOptions } = options;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { ...spawnOptions, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** The environment of this process without variables whose name starts with one of `prefixes`. */
export function envWithout(...prefixes: string[]): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !prefixes.some((p) => k.startsWith(p))));
}
