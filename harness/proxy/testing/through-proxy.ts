/**
 * `run` against the reference mock seller with the auditing proxy in between: the run's verdicts
 * and the proxy's own audit of the same traffic. With `relay`, the run's webhook receiver sits
 * behind the proxy's webhook relay (its listen port and public URL set as a user would, through
 * the environment), so every webhook the seller posts crosses the relay too.
 */
import { freeLoopbackPort } from '../../core/net/listen.js';
import { certify } from '../../certify/index.js';
import type { RunResult } from '../../core/engine/result.js';
import type { ProtocolLine } from '../../core/protocol/lines.js';
import { startMockSeller } from '../../../mocks/seller/index.js';
import { protocolIds } from '../../core/token.js';
import { LISTEN_ENV } from '../../core/webhooks/emission/config.js';
import { startAuditingProxy } from '../session.js';
import { counterpartyKeys } from '../../core/signing/keys/counterparty.js';
import { StaticKeyResolver } from '../../core/signing/keys/key-resolver.js';

export const broken = (run: RunResult): string[] =>
  run.checks.filter((c) => c.outcome === 'fail' || c.outcome === 'warn').map((c) => `${c.transport} ${c.check_id}`);

export async function throughProxy(o: {
  authToken: string;
  faults?: string[];
  suites?: string[];
  /** Only these checks (and what they build on), as `run --check`. */
  checkGlob?: string;
  relay?: boolean;
  /** Give the proxy the public keys of the run's test counterparty (what `--caller-jwks` does). */
  callerKeys?: boolean;
  /** The protocol line the seller speaks and both the run and the audit judge (a fault's own line). */
  target?: ProtocolLine;
}): Promise<{ run: RunResult; audit: RunResult }> {
  const line = o.target ? { protocolLine: o.target } : {};
  const seller = await startMockSeller({ allowPrivateWebhooks: true, authToken: o.authToken, faults: o.faults ?? [], ...line });
  const port = o.relay ? await freeLoopbackPort() : 0;
  const proxy = await startAuditingProxy({
    upstream: seller.baseUrl,
    token: 'proto',
    ...(o.target ? { target: o.target } : {}),
    ...(o.relay ? { webhooksTo: `http://127.0.0.1:${port}` } : {}),
    ...(o.callerKeys ? { callerKeys: new StaticKeyResolver(counterpartyKeys(protocolIds('proto')).jwks.keys) } : {}),
  });
  const baseEnv = protocolIds('proto').runnerWebhookEnv;
  const before = { listen: process.env[LISTEN_ENV], base: process.env[baseEnv] };
  if (o.relay) {
    process.env[LISTEN_ENV] = `127.0.0.1:${port}`;
    process.env[baseEnv] = proxy.webhookUrl;
  }
  try {
    const run = await certify({ agentUrl: proxy.url, authToken: o.authToken, suites: o.suites, checkGlob: o.checkGlob, target: o.target });
    await proxy.settle();
    return { run, audit: proxy.result() };
  } finally {
    for (const [name, value] of [
      [LISTEN_ENV, before.listen],
      [baseEnv, before.base],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await proxy.close();
    await seller.close();
  }
}

/**
 * Each fault behind the proxy while `run` drives the seller: the targets the audit must flag (on
 * the fault's transports) that it missed, and what it flagged that the run did not fail. The run
 * drives the fault's targets and the set-up they build on; when that traffic is not enough for the
 * run itself to fail every target, the targets' whole suites, then every suite given. "Not failed
 * by the run" is counted only for checks the run executed.
 */
export async function passiveKillRate(
  faults: ReadonlyArray<{ name: string; targets: readonly string[]; transports?: readonly string[]; target?: ProtocolLine }>,
  audited: ReadonlySet<string>,
  o: { authToken: string; suites: string[]; relay: boolean; callerKeys?: boolean },
): Promise<{ caught: number; missed: string[]; extra: string[] }> {
  const missed: string[] = [];
  const extra: string[] = [];
  for (const fault of faults) {
    const expected = fault.targets.filter((t) => audited.has(t)).flatMap((t) => (fault.transports ?? ['mcp', 'a2a']).map((tr) => `${tr} ${t}`));
    const narrow = ['setup.*', ...fault.targets].join(',');
    const wide = ['setup.*', ...new Set(fault.targets.map((t) => `${t.split('.')[0]}.*`))].join(',');
    // Narrowest traffic first; wider until the run itself fails every target (the suites of the targets, then all of `o.suites`).
    const at = { ...o, faults: [fault.name], target: fault.target };
    let r = await throughProxy({ ...at, checkGlob: narrow });
    for (const checkGlob of [wide, undefined]) {
      if (expected.every((e) => broken(r.run).includes(e))) break;
      r = await throughProxy({ ...at, checkGlob });
    }
    const found = broken(r.audit);
    const miss = expected.filter((e) => !found.includes(e));
    if (miss.length) missed.push(`${fault.name}: ${miss.join(', ')}`);
    const ran = new Set(r.run.checks.map((c) => `${c.transport} ${c.check_id}`));
    const runBroken = broken(r.run);
    const beyond = found.filter((x) => ran.has(x) && !runBroken.includes(x));
    if (beyond.length) extra.push(`${fault.name}: ${beyond.join(', ')}`);
  }
  return { caught: faults.length - missed.length, missed, extra };
}
