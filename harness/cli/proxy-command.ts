/**
 * `proto-comply proxy --upstream URL`: the auditing reverse proxy (harness/proxy). It runs until
 * SIGINT or SIGTERM, then writes the agent-compliance report (and every `--report-every-s`
 * seconds while it runs); a console line per finding and a periodic tally go to stderr, agent
 * text made inert.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { UsageError } from './usage.js';
import { DEFAULT_TOKEN, protocolIds, TokenError } from '../core/token.js';
import { exitCodeFor } from '../core/engine/summarize.js';
import { writeReportsSafely } from './run-failure.js';
import type { RunFrame } from '../core/engine/error-run.js';
import { targetInfo } from '../core/engine/run-result.js';
import { parseTargetFlag } from './target-flag.js';
import { renderSummary } from '../../reports/console.js';
import { oneLine } from '../../reports/text.js';
import { startAuditingProxy } from '../proxy/session.js';
import { auditedSuites } from '../proxy/report.js';
import { Injector, InjectRuleError, parseInjectRules } from '../proxy/inject.js';
import { isValidSeed, newSeed } from '../core/engine/rng.js';
import { AddressPolicy } from '../core/net/address-policy.js';
import { allowHostFlags } from './address-flags.js';
import { CallerKeysError, loadCallerKeys } from '../proxy/caller-keys.js';

export const PROXY_HELP = `usage: proto-comply proxy --upstream URL [--port N] [--host H] [--token T] [--out DIR] [--report-every-s N] [--rewrite-host]
                         [--webhooks-to ORIGIN [--webhook-port N]] [--caller-jwks FILE|URL] [--deny-private] [--allow-host H]...
                         [--inject RULES]... [--seed N]
       proto-comply proxy --mitm --ca-dir DIR --upstream URL [--port N] [--host H] [--upstream-ca FILE] [...]

A reverse proxy in front of one agent: point the buyer at the proxy's URL instead of the agent's.
Every exchange is passed through as it streams (discovery documents under /.well-known/ point at
the proxy) and audited passively under the check ids of \`run\`; rules the observed traffic never
exercised are coverage gaps. The buyer's own requests are judged too (the caller suite: arguments,
idempotency keys, retries, signatures), into a second report under <out>/caller.

  --upstream URL        the agent's base URL (its /mcp, /a2a and /.well-known/ paths are proxied)
  --port N              port to listen on (default 0: any free port, printed at start)
  --host H              address to listen on (default 127.0.0.1)
  --token T             protocol token of the agent's task names (default ${DEFAULT_TOKEN})
  --target LINE         protocol line to judge against: 3.0, 3.1 or 3.2 (default 3.1, the newest released line)
  --out DIR             report directory (default proxy-report; the buyer's report in DIR/caller)
  --report-every-s N    also write the report every N seconds while running
  --rewrite-host        send the upstream's Host instead of the client's (breaks request signatures)
  --mitm                a forward proxy instead: the buyer sets it as its HTTP(S) proxy and trusts the
                        CA it keeps in --ca-dir (created when absent: certs/ca.pem is what clients trust,
                        keys/ is private); HTTPS to --upstream's origin is opened and audited, a webhook
                        envelope posted to any other origin is audited as a webhook, the rest passes
  --ca-dir DIR          the forward proxy's CA directory (required with --mitm)
  --upstream-ca FILE    with --mitm: also trust this CA (PEM) for the agent's certificate
  --webhooks-to ORIGIN  also relay webhooks: the buyer registers its receiver URLs with the relay's
                        origin (printed at start) in place of the receiver's, same path; each webhook
                        is passed on to ORIGIN with its path and Host, so RFC 9421 signatures verify,
                        and audited under the webhooks suite's ids (signatures against the agent's keys)
  --webhook-port N      port of the webhook relay (default 0: any free port)
  --caller-jwks F|URL   the buyer's public request-signing keys (a JWKS file or URL): its signed
                        requests are then checked through the whole verifier checklist (key lookup,
                        key purpose, crypto), not only up to the key lookup
  --deny-private        refuse private and reserved addresses when fetching the agent's keys
                        (its brand.json and JWKS, to verify webhook signatures)
  --allow-host H        let this host, address or CIDR block through under --deny-private (repeatable)
  --inject RULES        faults for testing the caller, comma-separated or repeated, each firing with
                        probability P (default 1), decided by --seed and the exchange's number:
                          call:delay:500ms[:P]  call:reset[:P]  call:status:503[:P]
                          webhook:duplicate[:P]  webhook:reorder[:P]  webhook:corrupt-signature[:P]
                        (webhook rules need --webhooks-to; a reordered webhook is answered 200 at once
                        and delivered after the next one to its path, or alone after 5 s)
                        every fault injected is listed in the report's "injected"
  --seed N              seed of the injection draws (default: random, printed and kept in the report)

Writes both reports on SIGINT/SIGTERM; exit code as for run, from the agent's report, then the
buyer's (0 nothing broken, 1 a rule broken by either, 4 coverage incomplete).`;

const OPTIONS = {
  upstream: { type: 'string' },
  port: { type: 'string', default: '0' },
  host: { type: 'string', default: '127.0.0.1' },
  token: { type: 'string', default: DEFAULT_TOKEN },
  target: { type: 'string' },
  out: { type: 'string', default: 'proxy-report' },
  'report-every-s': { type: 'string' },
  'rewrite-host': { type: 'boolean', default: false },
  'webhooks-to': { type: 'string' },
  'webhook-port': { type: 'string', default: '0' },
  'deny-private': { type: 'boolean', default: false },
  'caller-jwks': { type: 'string' },
  mitm: { type: 'boolean', default: false },
  'ca-dir': { type: 'string' },
  'upstream-ca': { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  inject: { type: 'string', multiple: true },
  seed: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function parseUpstream(raw: string | undefined): string {
  if (!raw) throw new UsageError('proxy: --upstream URL is required (the agent the proxy stands in front of)');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`proxy: --upstream ${JSON.stringify(raw)} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`proxy: --upstream must be http or https, not ${url.protocol}`);
  if (url.username || url.password) throw new UsageError('proxy: --upstream must not carry credentials in the URL');
  return url.toString().replace(/\/$/, '');
}

/** `--mitm` and what goes with it: the CA directory, an extra CA for the agent, no reverse-proxy-only flags. */
function mitmFlags(
  v: { mitm: boolean; 'ca-dir'?: string; 'upstream-ca'?: string; 'rewrite-host': boolean },
  callFaults: boolean,
): { caDir: string; upstreamCa?: string } | undefined {
  if (!v.mitm) {
    for (const flag of ['ca-dir', 'upstream-ca'] as const) if (v[flag] !== undefined) throw new UsageError(`proxy: --${flag} goes with --mitm`);
    return undefined;
  }
  if (!v['ca-dir']) throw new UsageError('proxy: --mitm needs --ca-dir DIR (where its CA is kept; clients trust DIR/certs/ca.pem)');
  if (v['rewrite-host']) throw new UsageError('proxy: --rewrite-host is for the reverse proxy; a forward proxy sends what the client addressed');
  if (callFaults) throw new UsageError('proxy: call faults (--inject call:...) work with the reverse proxy only, not with --mitm');
  let upstreamCa: string | undefined;
  if (v['upstream-ca'] !== undefined) {
    try {
      upstreamCa = readFileSync(v['upstream-ca'], 'utf8');
    } catch (e) {
      throw new UsageError(`proxy: --upstream-ca ${JSON.stringify(v['upstream-ca'])}: ${(e as Error).message}`);
    }
    if (!upstreamCa.includes('-----BEGIN CERTIFICATE-----'))
      throw new UsageError(`proxy: --upstream-ca ${JSON.stringify(v['upstream-ca'])} is not a PEM certificate`);
  }
  return { caDir: resolve(v['ca-dir']), ...(upstreamCa ? { upstreamCa } : {}) };
}

/** A receiver origin: webhooks keep their own path, so a path here would break every signature. */
function parseOrigin(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`proxy: ${name} ${JSON.stringify(raw)} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`proxy: ${name} must be http or https, not ${url.protocol}`);
  if (url.username || url.password) throw new UsageError(`proxy: ${name} must not carry credentials in the URL`);
  if (url.pathname !== '/' || url.search || url.hash)
    throw new UsageError(`proxy: ${name} must be an origin (scheme, host, port) without a path: each webhook keeps the path it was sent to`);
  return url.origin;
}

function positiveInt(name: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`proxy: ${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return n;
}

export async function proxyCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true });
  if (values.help) {
    process.stdout.write(`${PROXY_HELP}\n`);
    return 0;
  }
  const upstream = parseUpstream(values.upstream);
  const port = positiveInt('--port', values.port, 0, 65_535);
  const every = values['report-every-s'] === undefined ? undefined : positiveInt('--report-every-s', values['report-every-s'], 1, 86_400);
  try {
    protocolIds(values.token);
  } catch (e) {
    if (e instanceof TokenError) throw new UsageError(`proxy: ${e.message}`);
    throw e;
  }
  let rules;
  try {
    rules = parseInjectRules(values.inject ?? []);
  } catch (e) {
    if (e instanceof InjectRuleError) throw new UsageError(`proxy: ${e.message}`);
    throw e;
  }
  const webhooksTo = values['webhooks-to'] === undefined ? undefined : parseOrigin('--webhooks-to', values['webhooks-to']);
  const webhookPort = positiveInt('--webhook-port', values['webhook-port'], 0, 65_535);
  const webhookRule = rules.find((r) => r.on === 'webhook');
  if (webhookRule && !webhooksTo)
    throw new UsageError(`proxy: --inject ${webhookRule.text}: webhook faults act on relayed webhooks; give --webhooks-to ORIGIN (the buyer's receiver)`);
  if (values.seed !== undefined && !isValidSeed(values.seed))
    throw new UsageError(`proxy: --seed must be an integer of up to 16 digits, got ${JSON.stringify(values.seed)}`);
  const mitm = mitmFlags(
    values,
    rules.some((r) => r.on === 'call'),
  );
  const addressPolicy = new AddressPolicy({ denyPrivate: values['deny-private'], allowHosts: allowHostFlags('proxy', values['allow-host']) });
  let callerKeys;
  if (values['caller-jwks'] !== undefined) {
    try {
      callerKeys = await loadCallerKeys(values['caller-jwks'], addressPolicy);
    } catch (e) {
      if (e instanceof CallerKeysError) throw new UsageError(`proxy: ${e.message}`);
      throw e;
    }
  }
  const target = parseTargetFlag('proxy', values.target);
  const seed = values.seed ?? newSeed();
  const inject = rules.length ? new Injector(rules, seed) : undefined;
  const out = resolve(values.out);
  const err = (line: string) => process.stderr.write(`${line}\n`);
  const proxy = await startAuditingProxy({
    upstream,
    token: values.token,
    host: values.host,
    port,
    command: `proto-comply proxy ${argv.join(' ')}`,
    rewriteHost: values['rewrite-host'],
    webhooksTo,
    webhookPort,
    addressPolicy,
    ...(callerKeys ? { callerKeys } : {}),
    ...(mitm ? { mitm } : {}),
    inject,
    ...(target ? { target } : {}),
    onFinding: (v) => err(`${v.checkId.startsWith('caller.') ? 'buyer finding' : 'finding'}: ${v.checkId}: ${oneLine(v.message, 240)}`),
  }).catch((e: unknown) => {
    throw new UsageError(`proxy: cannot listen on ${values.host}:${port}: ${(e as Error).message}`);
  });
  if (proxy.caCertPath) {
    err(`forward proxy listening on ${proxy.url}, auditing ${upstream}`);
    err(`set it as the buyer's HTTPS proxy (HTTPS_PROXY=${proxy.url}) and trust ${proxy.caCertPath}`);
    err(`(Node: NODE_EXTRA_CA_CERTS=${proxy.caCertPath}; curl: --proxy ${proxy.url} --cacert ${proxy.caCertPath})`);
  } else err(`proxy listening on ${proxy.url} -> ${upstream}`);
  if (proxy.webhookUrl) err(`webhook relay on ${proxy.webhookUrl} -> ${webhooksTo} (register receiver URLs with this origin, same path)`);
  const callerOut = join(out, 'caller');
  err(`point the buyer at ${proxy.url}; Ctrl-C writes the agent's report to ${out} and the buyer's to ${callerOut}`);
  if (inject) err(`injecting ${rules.map((r) => r.text).join(', ')} (seed ${seed})`);

  const frame: RunFrame = {
    agentUrl: upstream,
    token: values.token,
    transports: ['mcp', 'a2a'],
    seed: inject ? seed : '0',
    command: `proto-comply proxy ${argv.join(' ')}`,
    suites: auditedSuites(proxy.checkIds).suites,
    strict: false,
    startedAt: new Date(),
    target: targetInfo(target),
  };
  const callerFrame: RunFrame = { ...frame, suites: auditedSuites(proxy.callerCheckIds).suites };
  const write = async () => {
    await proxy.settle();
    const saved = await writeReportsSafely(proxy.result(), frame, { dir: out });
    if (saved.writeError) err(`proto-comply: ${saved.writeError}`);
    const buyer = await writeReportsSafely(proxy.callerResult(), callerFrame, { dir: callerOut });
    if (buyer.writeError) err(`proto-comply: ${buyer.writeError}`);
    return { saved, buyer };
  };
  const tally = setInterval(() => {
    const s = proxy.stats();
    err(
      `seen ${s.exchanges} exchanges, ${s.calls} task calls${webhooksTo ? `, ${s.webhooks} webhooks` : ''}, ${s.verdicts} verdicts, ${s.findings} findings, ${s.callerFindings} buyer findings${inject ? `, ${s.injected} faults injected` : ''}`,
    );
  }, 10_000);
  tally.unref();
  const periodic = every ? setInterval(() => void write(), every * 1000) : undefined;
  periodic?.unref();

  await new Promise<void>((done) => {
    process.once('SIGINT', () => done());
    process.once('SIGTERM', () => done());
  });
  clearInterval(tally);
  if (periodic) clearInterval(periodic);
  await proxy.close();
  const { saved, buyer } = await write();
  process.stdout.write(`${renderSummary(saved.run, { written: saved.written })}\n`);
  process.stdout.write(`\nthe buyer's requests (caller report):\n${renderSummary(buyer.run, { written: buyer.written })}\n`);
  // The agent's verdict first (unreachable, error, failed); a clean agent with a failing buyer still fails.
  const code = exitCodeFor(saved.run);
  return code !== 0 ? code : exitCodeFor(buyer.run);
}
