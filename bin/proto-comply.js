#!/usr/bin/env node
// Entry point of the `proto-comply` command. The sources are TypeScript run through tsx,
// so the checkout works right after `npm ci` with no build step.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  // Load only what the command needs: the version is package.json's, without the TypeScript loader.
  const { readFileSync } = await import('node:fs');
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`proto-comply ${version}\n`);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../harness/cli/main.ts');
  process.exitCode = await main(argv);
}
// Whatever an agent left open (a hanging connection, a drip-fed body) must not keep the command
// alive once it has its verdict: give pending output a moment, then exit.
setTimeout(() => process.exit(), 1_000).unref();
