#!/usr/bin/env node
// Entry point of the `proto-comply` command. The sources are TypeScript run through tsx,
// so the checkout works right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../harness/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
// Whatever an agent left open (a hanging connection, a drip-fed body) must not keep the command
// alive once it has its verdict: give pending output a moment, then exit.
setTimeout(() => process.exit(), 1_000).unref();
