/**
 * The two storyboard runners as their users run them, each a whole process on loopback, both against
 * the bundle @adcp/sdk ships (`compliance/cache/3.0.6`): proto-comply (`run --storyboards … --json`,
 * the agent-compliance JSON on stdout) and the SDK's own reference runner (`adcp storyboard run <mcp>
 * --json`: the capability-driven full assessment, over MCP, with its loopback webhook receiver; its
 * ComplianceResult on stdout). Each run is bounded in time and killed when it overruns.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentComplianceDocument } from '../../../reports/json.js';
import { RUNNER_OUTPUT_FILE, type RunnerOutputDocument } from '../../../reports/runner-output.js';
import type { ReferenceResult } from './storyboard-verdicts.js';
import type { Launched } from './agents.js';

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(here, '..', '..');
const BIN = join(root, 'bin', 'proto-comply.js');
export const SDK_DIR = join(here, 'adcp-sdk-sellers', 'node_modules', '@adcp', 'sdk');
export const BUNDLE_VERSION = '3.0.6';
export const BUNDLE_DIR = join(SDK_DIR, 'compliance', 'cache', BUNDLE_VERSION);
const REFERENCE_BIN = join(SDK_DIR, 'bin', 'adcp.js');
const RUN_TIMEOUT_MS = 180_000;

/** Whether @adcp/sdk (its runner and its 3.0.6 bundle) is installed beside the launchers. */
export const sdkInstalled = (): boolean => existsSync(REFERENCE_BIN) && existsSync(join(BUNDLE_DIR, 'index.json'));

export interface ProcessRun<T> {
  json: T;
  /** From spawn to exit. */
  wallMs: number;
}

/** Runs `node args…`, returns its stdout parsed as JSON; fails on another exit code than 0 or 1, or after RUN_TIMEOUT_MS. */
function runJson<T>(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ProcessRun<T>> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const out: Buffer[] = [];
  let err = '';
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const wallMs = performance.now() - t0;
      const what = `${args.slice(0, 3).join(' ')}…`;
      if (code !== 0 && code !== 1) return reject(new Error(`${what} exited ${code ?? signal}: ${err}`));
      try {
        resolve({ json: JSON.parse(Buffer.concat(out).toString('utf8')) as T, wallMs });
      } catch (e) {
        reject(new Error(`${what}: no JSON on stdout (${e}): ${err}`));
      }
    });
  });
}

/**
 * `proto-comply run --storyboards <3.0.6> --target 3.0 --json` against the agent: over every
 * transport it serves (one run: MCP, then A2A), or over MCP alone; with the runner output it wrote
 * beside its reports (runner-output.json, written by default for a storyboard run).
 */
export async function runOurs(
  l: Launched,
  seed: string,
  transports: 'served' | 'mcp' = 'served',
): Promise<ProcessRun<AgentComplianceDocument> & { runnerOutput: RunnerOutputDocument }> {
  const out = mkdtempSync(join(tmpdir(), 'proto-comply-sb-'));
  const both = transports === 'served' && l.facts.card !== undefined;
  const args = [BIN, 'run', '--agent', l.facts.mcp, '--storyboards', BUNDLE_DIR, '--token', 'adcp', '--target', '3.0'];
  args.push('--transport', both ? 'both' : 'mcp', ...(both ? ['--a2a-url', l.facts.card] : []));
  // Every launcher starts its example with NODE_ENV=development (see agents.ts certifyAgent).
  args.push('--lifecycle-stage', 'development', '--seed', seed, '--out', out, '--json');
  try {
    const run = await runJson<AgentComplianceDocument>(args, l.facts.token ? { PROTO_COMPLY_AUTH_TOKEN: l.facts.token } : {});
    return { ...run, runnerOutput: JSON.parse(readFileSync(join(out, RUNNER_OUTPUT_FILE), 'utf8')) as RunnerOutputDocument };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** `adcp storyboard run <mcp> --json` (the SDK's reference runner, full assessment over MCP, with its webhook receiver). */
export function runReference(l: Launched): Promise<ProcessRun<ReferenceResult>> {
  const args = [REFERENCE_BIN, 'storyboard', 'run', l.facts.mcp, '--allow-http', '--webhook-receiver', '--json'];
  if (l.facts.token) args.push('--auth', l.facts.token);
  return runJson(args);
}
