/**
 * The badge key file on disk: one JSON document `{version: 1, keys: [...]}` holding the registry's
 * Ed25519 private keys, so it is owner-only.
 *
 * - Read: opened without following a symbolic link, then checked on the open descriptor (no race
 *   between the check and the read): a regular file, owned by this process's user, with no group or
 *   other permission bit ("chmod 600"), at most 1 MiB. Anything else is a `BadgeKeyFileError`.
 * - Write: a temporary file in the same directory, created with mode 0600 (and fchmod'ed to 0600
 *   before a byte is written, whatever the umask), written and fsync'ed, then renamed over the
 *   file (rotation) or hard-linked to its name (creation: fails if another process created it
 *   first, so a concurrent start never replaces a key set someone is already signing with).
 *   The directory's permissions are never changed; a missing directory is created 0700.
 *
 * The file is never replaced because it is unreadable or corrupted: that would silently invalidate
 * every token already issued. The operator decides (restore it, or move it aside).
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export const KEY_FILE_VERSION = 1;
const MAX_KEY_FILE_BYTES = 1024 * 1024;

/** The key file cannot be used: never recovered from automatically. */
export class BadgeKeyFileError extends Error {
  override name = 'BadgeKeyFileError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`badge key file ${path}: ${message}`);
  }
}

/** The file's text, or undefined when it does not exist. */
export async function readKeyFile(path: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new BadgeKeyFileError(path, 'is a symbolic link; refusing to follow it');
    throw new BadgeKeyFileError(path, `cannot be opened (${code ?? (e as Error).message})`);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new BadgeKeyFileError(path, 'is not a regular file');
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) {
      throw new BadgeKeyFileError(path, `is owned by uid ${st.uid}, not by this process (uid ${uid}); it must belong to the registry's user`);
    }
    if ((st.mode & 0o077) !== 0) {
      const mode = (st.mode & 0o777).toString(8).padStart(3, '0');
      throw new BadgeKeyFileError(path, `is readable or writable by group or others (mode ${mode}); it holds private keys: chmod 600 ${path}`);
    }
    if (st.size > MAX_KEY_FILE_BYTES) throw new BadgeKeyFileError(path, `is larger than ${MAX_KEY_FILE_BYTES} bytes`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

async function writeTemp(path: string, text: string): Promise<string> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    await handle.chmod(0o600);
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } catch (e) {
    await handle.close();
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  await handle.close();
  return tmp;
}

async function syncDir(dir: string): Promise<void> {
  try {
    const d = await open(dir, constants.O_RDONLY);
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // Some file systems refuse to fsync a directory: the rename itself is still atomic.
  }
}

/** Creates the file; false (nothing written) when it already exists. */
export async function createKeyFile(path: string, text: string): Promise<boolean> {
  const tmp = await writeTemp(path, text);
  try {
    await link(tmp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new BadgeKeyFileError(path, `cannot be created (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  await syncDir(dirname(path));
  return true;
}

/** Atomically replaces the file's content (a reader sees the old or the new file, never a mix). */
export async function replaceKeyFile(path: string, text: string): Promise<void> {
  const tmp = await writeTemp(path, text);
  try {
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw new BadgeKeyFileError(path, `cannot be replaced (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  await syncDir(dirname(path));
}
