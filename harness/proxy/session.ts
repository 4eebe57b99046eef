/**
 * One auditing proxy: the reverse proxy in front of the agent, each finished exchange decoded
 * (observe.ts) and judged (audit.ts), the verdicts tallied for the report (report.ts).
 */
import { builtinSuites } from '../../suites/index.js';
import { protocolIds } from '../core/token.js';
import type { RunResult } from '../core/engine/result.js';
import { AUDITED_CHECKS, PassiveAudit, type Verdict } from './audit.js';
import { A2aTaskMemory, observeCall, observeRequest, wireExchange } from './observe.js';
import { CALLER_AUDITED_CHECKS, CallerAudit } from './caller-audit.js';
import { createRecorder } from '../core/transport/capture.js';
import { webhookCredentials } from '../core/transport/http-client.js';
import { isObject, tryParseJson } from '../core/transport/jsonrpc.js';
import { Redactor } from '../core/transport/redact.js';
import { AuditTally, auditRunResult } from './report.js';
import { startReverseProxy } from './reverse.js';
import { newExchangeClock, type ProxiedExchange, type RunningListener } from './http-parts.js';
import { startMitmProxy } from './mitm.js';
import { startWebhookRelay, type RunningWebhookRelay } from './webhook-relay.js';
import type { Injector } from './inject.js';
import { WEBHOOK_AUDITED_CHECKS, WebhookAudit } from './webhook-audit.js';
import { KEYED_SIGNATURE_CHECKS, SIGNATURE_AUDITED_CHECKS, SignatureAudit } from './signature-audit.js';
import type { KeyResolver } from '../core/signing/keys/key-resolver.js';
import type { TransportKind } from '../core/transport/types.js';
import type { AddressPolicy } from '../core/net/address-policy.js';
import { brandJsonUrlFor, publishedKeyResolver } from '../core/webhooks/emission/keys.js';
import { DEFAULT_TARGET, inLines, type ProtocolLine } from '../core/protocol/lines.js';

export interface AuditingProxyOptions {
  upstream: string;
  token: string;
  host?: string;
  port?: number;
  command?: string;
  /** Send the upstream's own Host (see reverse.ts). */
  rewriteHost?: boolean;
  /** Forward proxy instead of the reverse one (mitm.ts): the buyer's HTTP(S) proxy, with a CA kept in `caDir`. */
  mitm?: { caDir: string; upstreamCa?: string };
  /** The buyer's webhook receiver origin: webhooks posted to the relay are passed on there. */
  webhooksTo?: string;
  /** Port of the webhook relay (default: any free port). */
  webhookPort?: number;
  /** Longest a reordered webhook is held (default 5 s). */
  webhookHoldMs?: number;
  /** The caller's published request-signing keys: its signed requests are then verified through the whole checklist. */
  callerKeys?: KeyResolver;
  /** Address policy of the proxy's own fetches (the agent's keys); default: private addresses allowed. */
  addressPolicy?: AddressPolicy;
  /** Faults to inject (inject.ts); recorded in the report's `injected`. */
  inject?: Injector;
  /** Called for every failing verdict as it happens (the live console line). */
  onFinding?: (v: Verdict) => void;
  /** The protocol line judged against (default the newest released line): rules of other lines are not applicable. */
  target?: ProtocolLine;
}

export interface AuditingProxy {
  /** The proxy's URL: give it to the buyer in place of the agent's (with `mitm`: the buyer's HTTP(S) proxy). */
  url: string;
  /** With `mitm`: the CA certificate the buyer must trust. */
  caCertPath?: string;
  /** The webhook relay's origin (with `webhooksTo`): the buyer registers its receiver URLs with this origin. */
  webhookUrl?: string;
  stats(): {
    exchanges: number;
    calls: number;
    webhooks: number;
    verdicts: number;
    findings: number;
    callerFindings: number;
    injected: number;
    unaudited: number;
  };
  /** The check ids judged on the agent: the call rules, and the webhook rules when the relay runs. */
  checkIds: readonly string[];
  /** The check ids judged on the buyer (the `caller` suite). */
  callerCheckIds: readonly string[];
  /** Resolves once every exchange seen so far has been judged (webhook verification fetches keys). */
  settle(): Promise<void>;
  /** The agent's report as it stands (may be called any number of times; `settle` first for the latest). */
  result(): RunResult;
  /** The buyer's report (the `caller` suite's rules on the requests seen), likewise. */
  callerResult(): RunResult;
  close(): Promise<void>;
}

type ActionRow = { include?: string[]; exclude?: string[]; exactly?: string[] };

/** The valid_actions table, read from the state-machine suite (one table for `run` and the audit). */
export function validActionsTable(target: ProtocolLine = DEFAULT_TARGET): Record<string, ActionRow> {
  for (const suite of builtinSuites().suites)
    for (const check of suite.checks)
      for (const step of check.steps)
        for (const e of Array.isArray(step.expect) ? (step.expect as Array<{ kind?: unknown; table?: unknown; lines?: string[] }>) : [])
          if (e.kind === 'valid_actions' && e.table && inLines(target, e.lines)) return e.table as Record<string, ActionRow>;
  throw new Error('no valid_actions table in the built-in suites');
}

/** Tasks graded together by one check (an `observed_schema` step listing `tasks`), read from the built-in suites: task → check id. */
export function groupedResponseChecks(): Map<string, string> {
  const out = new Map<string, string>();
  for (const suite of builtinSuites().suites)
    for (const check of suite.checks)
      for (const step of check.steps) {
        const s = step as { kind?: unknown; tasks?: unknown };
        if (s.kind === 'observed_schema' && Array.isArray(s.tasks)) for (const t of s.tasks) if (typeof t === 'string') out.set(t, check.id);
      }
  return out;
}

export async function startAuditingProxy(o: AuditingProxyOptions): Promise<AuditingProxy> {
  const errorMember = protocolIds(o.token).errorMember;
  const audit = new PassiveAudit(o.token, validActionsTable(o.target), groupedResponseChecks());
  const webhookAudit = new WebhookAudit({
    token: o.token,
    upstream: o.upstream,
    // The agent's published keys, found as `run` finds them (harness/core/webhooks/emission/keys.ts).
    keys: (endpoint, caps) => ({
      resolver: publishedKeyResolver({
        agentUrl: o.upstream,
        brandJsonUrl: upstreamBrandJsonUrl(brandJsonUrlFor(o.upstream, caps)),
        endpoint,
        policy: o.addressPolicy,
      }),
    }),
  });
  // An agent that declares its brand.json at the Host it was reached at names the proxy's origin;
  // the audit reads the agent's own declaration, whose agents[] name the upstream URLs.
  let proxyOrigin: string | undefined;
  const upstreamBrandJsonUrl = (declared: string): string => {
    const url = new URL(declared);
    if (proxyOrigin === undefined || url.host !== new URL(proxyOrigin).host) return declared;
    return new URL(`${url.pathname}${url.search}`, o.upstream).href;
  };
  const signatureAudit = new SignatureAudit(protocolIds(o.token), o.callerKeys);
  const callerAudit = new CallerAudit(o.token);
  const callerCheckIds = [...CALLER_AUDITED_CHECKS, 'caller.signature.verifies'];
  const callChecks = [...AUDITED_CHECKS, ...SIGNATURE_AUDITED_CHECKS, ...(o.callerKeys ? KEYED_SIGNATURE_CHECKS : [])];
  const checkIds = o.webhooksTo || o.mitm ? [...callChecks, ...WEBHOOK_AUDITED_CHECKS] : callChecks;
  let judging: Promise<void> = Promise.resolve();
  const a2aTasks = new A2aTaskMemory();
  const tally = new AuditTally();
  const callerTally = new AuditTally();
  const startedAt = new Date();
  let exchanges = 0;
  let calls = 0;
  let webhooks = 0;
  // The buyer's credentials pass through the proxy: each is learnt before its exchange is kept, so
  // no header, body, message or report holds one (the recorder keeps nothing itself: maxExchanges 1).
  const redactor = new Redactor();
  const recorder = createRecorder({ token: o.token, redactor, maxExchanges: 1 });
  const learnSecrets = (x: ProxiedExchange): void => {
    for (const name of ['authorization', 'proxy-authorization']) {
      const value = x.request.headers[name];
      const m = value === undefined ? null : /^\s*\S+\s+(.+)$/.exec(value);
      if (m) redactor.add(m[1].trim());
    }
    const body = tryParseJson(x.request.body);
    if (body.ok) for (const secret of webhookCredentials(body.value)) redactor.add(secret);
  };
  let unaudited = 0;
  const report = (transport: TransportKind, verdicts: Verdict[]): void => {
    // The buyer's rules go to its own report: a buyer's mistake is no finding against the agent.
    tally.add(
      transport,
      verdicts.filter((v) => !v.checkId.startsWith('caller.')),
    );
    callerTally.add(
      transport,
      verdicts.filter((v) => v.checkId.startsWith('caller.')),
    );
    if (o.onFinding) for (const v of verdicts) if (!v.ok) o.onFinding({ ...v, message: redactor.cutText(v.message) });
  };
  const onRequest = (seq: number, tStart: number, body: string): void => {
    try {
      audit.requestStarted(seq, tStart, body);
    } catch {
      // what is in flight only narrows verdicts; a request the audit cannot read is judged when it ends
    }
  };
  const onExchange = (x: ProxiedExchange): void => {
    exchanges++;
    // The traffic never depends on the audit: an exchange the audit chokes on is counted, not fatal.
    try {
      learnSecrets(x);
      if (x.channel !== 'webhook') audit.requestEnded(x.seq);
      if (x.channel === 'webhook') {
        if (x.injected_copy) return;
        webhooks++;
        const exchange = recorder.record(wireExchange(x, 'http'));
        // In arrival order, one at a time: keys, nonces and retries are judged against what came before.
        judging = judging
          .then(() => webhookAudit.judge(x, exchange))
          .then(({ transport, verdicts }) => report(transport, verdicts))
          .catch(() => {
            unaudited++;
          });
        return;
      }
      const exchange = recorder.record(wireExchange(x, 'http'));
      const request = observeRequest(x, a2aTasks);
      if (!request) return;
      exchange.transport = request.transport;
      const call = observeCall(x, exchange, errorMember, a2aTasks, request);
      report(request.transport, callerAudit.judge(request, x, exchange, call?.reply));
      if (!call) return;
      calls++;
      a2aTasks.note(call);
      webhookAudit.noteCall(call);
      report(call.transport, audit.judge(call));
      const capabilities = webhookAudit.agentCapabilities;
      // The agent's verifier, when it declares one (unsigned requests too: some operations require a signature).
      if (isObject(capabilities?.request_signing) && capabilities.request_signing.supported === true) {
        judging = judging
          .then(() => signatureAudit.judge(call, x, capabilities))
          .then((verdicts) => report(call.transport, verdicts))
          .catch(() => {
            unaudited++;
          });
      }
    } catch {
      unaudited++;
    }
  };
  const clock = newExchangeClock();
  const proxy: RunningListener & { caCertPath?: string } = o.mitm
    ? await startMitmProxy({
        upstream: o.upstream,
        host: o.host,
        port: o.port,
        caDir: o.mitm.caDir,
        upstreamCa: o.mitm.upstreamCa,
        clock,
        onExchange,
        onRequest,
      })
    : await startReverseProxy({ upstream: o.upstream, host: o.host, port: o.port, rewriteHost: o.rewriteHost, inject: o.inject, clock, onExchange, onRequest });
  proxyOrigin = proxy.url;
  let relay: RunningWebhookRelay | undefined;
  if (o.webhooksTo) {
    try {
      relay = await startWebhookRelay({ to: o.webhooksTo, host: o.host, port: o.webhookPort, holdMs: o.webhookHoldMs, inject: o.inject, clock, onExchange });
    } catch (e) {
      await proxy.close();
      throw e;
    }
  }
  return {
    url: proxy.url,
    ...(proxy.caCertPath ? { caCertPath: proxy.caCertPath } : {}),
    ...(relay ? { webhookUrl: relay.url } : {}),
    checkIds,
    callerCheckIds,
    settle: async () => {
      // A webhook judged may have queued behind another: wait until the chain stops growing.
      for (let last: Promise<void> | undefined; last !== judging; ) {
        last = judging;
        await last;
      }
    },
    stats: () => ({
      exchanges,
      calls,
      webhooks,
      verdicts: tally.judged,
      findings: tally.findings,
      callerFindings: callerTally.findings,
      injected: o.inject?.summary().total ?? 0,
      unaudited,
    }),
    result: () =>
      redactor.value(
        auditRunResult({
          upstream: o.upstream,
          token: o.token,
          ids: checkIds,
          tally,
          exchanges,
          startedAt,
          ...(o.target ? { target: o.target } : {}),
          command: o.command ?? 'proto-comply proxy',
          injected: o.inject?.summary(),
          unaudited,
        }),
      ),
    callerResult: () =>
      redactor.value(
        auditRunResult({
          upstream: o.upstream,
          token: o.token,
          ids: callerCheckIds,
          tally: callerTally,
          exchanges,
          startedAt,
          ...(o.target ? { target: o.target } : {}),
          command: o.command ?? 'proto-comply proxy',
          injected: o.inject?.summary(),
          unaudited,
          subject: 'caller',
        }),
      ),
    async close() {
      await proxy.close();
      await relay?.close();
    },
  };
}
