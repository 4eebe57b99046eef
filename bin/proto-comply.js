#!/usr/bin/env node
// Entry point of the `proto-comply` command. The sources are TypeScript; the command runs their
// bundle (bin/build-cli.js: built by `npm ci`, built again here when a source changed since), and
// the sources themselves through tsx when PROTO_COMPLY_FROM_SOURCE is set or no bundle can be built.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  // Load only what the command needs: the version is package.json's, without the TypeScript loader.
  const { readFileSync } = await import('node:fs');
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`proto-comply ${version}\n`);
} else {
  const { main } = await loadMain();
  process.exitCode = await main(argv);
}
// Whatever an agent left open (a hanging connection, a drip-fed body) must not keep the command
// alive once it has its verdict: give pending output a moment, then exit.
setTimeout(() => process.exit(), 1_000).unref();

async function loadMain() {
  if (!process.env.PROTO_COMPLY_FROM_SOURCE) {
    try {
      const { freshBuild, buildCli } = await import('./build-cli.js');
      return await import((freshBuild() ?? (await buildCli())).href);
    } catch (e) {
      // The sources still run: a failed build costs only the start-up time it would have saved.
      if (process.env.PROTO_COMPLY_DEBUG) process.stderr.write(`proto-comply: running the sources (no bundle: ${e?.message ?? e})\n`);
    }
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import('../harness/cli/main.ts');
}
