/**
 * A realistic RunResult for the report writers' tests: several suites, both transports,
 * every outcome (and a check cut short by the budget), evidence with wire exchanges, a check
 * whose MCP and A2A verdicts differ, a baselined failure, an untested suite, and hostile
 * agent-controlled strings everywhere (markup, script, `javascript:` URLs, `]]>`, control
 * characters, bidi overrides, lone surrogates). Counts and statuses are computed from the
 * checks, so the fixture is consistent by construction.
 */
import { emptyCounts, isFailing } from '../../harness/core/engine/result.js';
import type { CheckResult, Evidence, Level, Outcome, OutcomeCounts, RunResult, SuiteResult, SuiteStatus } from '../../harness/core/engine/result.js';
import { DEFAULT_TOKEN, protocolIds } from '../../harness/core/token.js';
import { coverageOf } from '../../harness/core/engine/summarize.js';
import type { TransportKind, WireExchange } from '../../harness/core/transport/types.js';

/** Each one sets `window.__pwned` (or opens a dialog) if a renderer lets it execute. */
export const HOSTILE = {
  script: '<script>window.__pwned = "script"</script>',
  img: `"><img src=x onerror="window.__pwned='img'">`,
  alert: `'><img src=x onerror=alert(1)>`,
  textarea: '</textarea><script>window.__pwned="textarea"</script>',
  svg: `<svg onload="window.__pwned='svg'"></svg>`,
  closers: '<!-- --> </details></pre></code></td></tr></table></summary>',
  meta: '<meta http-equiv="refresh" content="0;url=https://example.invalid/">',
  jsUrl: 'javascript:window.__pwned="href"',
  cdata: ']]><![CDATA[<x>]]>',
  entities: '&amp; &lt; &#x3C; & &unknown;',
  quotes: `'single' "double" \`back\``,
  control: 'bell\u0007 nul\u0000 esc\u001b[31mRED\u001b[0m cr\r lf\n tab\t c1\u009b31m del\u007f',
  bidi: 'invoice\u202Efdp.exe',
  lone: 'lone \uD800 surrogate \uFFFE\uFFFF',
  astral: 'emoji 😀 ok',
} as const;

export const HOSTILE_ALL = Object.values(HOSTILE).join(' | ');

export const HOSTILE_AGENT_URL = `javascript:window.__pwned=1//"><img src=x onerror="window.__pwned='url'">`;

const ids = protocolIds(DEFAULT_TOKEN);
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
let seq = 0;

function at(offsetMs: number): string {
  return new Date(T0 + offsetMs).toISOString();
}

function mcpExchange(task: string, status: number, responseBody: string, extra: Partial<WireExchange> = {}): WireExchange {
  seq += 1;
  return {
    seq,
    transport: 'mcp',
    purpose: `tools/call ${task}`,
    started_at: at(seq * 10),
    duration_ms: 12,
    request: {
      method: 'POST',
      url: 'https://agent.example/mcp',
      headers: { 'content-type': 'application/json', authorization: 'Bearer [redacted]', 'mcp-session-id': 'abcd…' },
      body: JSON.stringify({ jsonrpc: '2.0', id: seq, method: 'tools/call', params: { name: task, arguments: { brief: HOSTILE.script } } }),
    },
    response: {
      status,
      headers: { 'content-type': 'application/json', 'x-agent-note': HOSTILE.img },
      body: responseBody,
    },
    ...extra,
  };
}

function a2aExchange(task: string, status: number | undefined, responseBody: string, error?: string): WireExchange {
  seq += 1;
  return {
    seq,
    transport: 'a2a',
    purpose: `message/send ${task}`,
    started_at: at(seq * 10),
    duration_ms: 30,
    request: {
      method: 'POST',
      url: 'https://agent.example/a2a',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: seq, method: 'message/send', params: { skill: task } }),
    },
    ...(status === undefined ? {} : { response: { status, headers: { server: HOSTILE.svg }, body: responseBody, body_truncated: true } }),
    ...(error ? { error } : {}),
  };
}

interface Spec {
  suite: string;
  id: string;
  title: string;
  level: Level;
  section: string;
  rule?: string;
}

function check(spec: Spec, transport: TransportKind, outcome: Outcome, message: string, extra: Partial<CheckResult> = {}): CheckResult {
  return {
    check_id: spec.id,
    suite_id: spec.suite,
    title: spec.title,
    level: spec.level,
    spec_ref: { doc: 'interface-spec', section: spec.section, ...(spec.rule ? { rule: spec.rule } : {}) },
    transport,
    outcome,
    duration_ms: transport === 'mcp' ? 12 : 31.5,
    message,
    ...extra,
  };
}

function evidence(partial: Partial<Evidence> & { exchanges?: WireExchange[] }): Evidence {
  return { exchanges: [], ...partial };
}

export function tallyCounts(checks: CheckResult[]): OutcomeCounts {
  const counts = emptyCounts();
  for (const c of checks) counts[c.outcome] += 1;
  return counts;
}

function statusOf(checks: CheckResult[]): SuiteStatus {
  if (checks.length === 0) return 'untested';
  if (checks.every((c) => c.outcome === 'not_applicable')) return 'not_applicable';
  if (checks.some((c) => isFailing(c))) return 'failing';
  if (checks.some((c) => c.not_run)) return 'partial';
  return 'passing';
}

function suite(suite_id: string, title: string, checks: CheckResult[], transports: TransportKind[]): SuiteResult {
  const own = checks.filter((c) => c.suite_id === suite_id);
  const result: SuiteResult = { suite_id, title, status: statusOf(own), counts: tallyCounts(own), by_transport: {} };
  for (const t of transports) {
    const mine = own.filter((c) => c.transport === t);
    if (mine.length > 0) result.by_transport[t] = { status: statusOf(mine), counts: tallyCounts(mine) };
  }
  const first = own.find((c) => isFailing(c));
  if (first) result.first_failure = { check_id: first.check_id, transport: first.transport, message: first.message };
  return result;
}

const S = {
  answers: { suite: 'capabilities', id: 'capabilities.task.answers', title: 'Capabilities task answers', level: 'MUST', section: '4.1', rule: 'rule 1' },
  version: { suite: 'capabilities', id: 'capabilities.version.declared', title: 'Declares a protocol version', level: 'MUST', section: '4.1', rule: 'rule 3' },
  listed: { suite: 'capabilities', id: 'capabilities.tasks.listed', title: 'Lists every declared task', level: 'SHOULD', section: '4.2' },
  replay: {
    suite: 'idempotency',
    id: 'idempotency.replay.same-payload',
    title: 'Replay returns the same payload',
    level: 'MUST',
    section: '5.3',
    rule: 'rule 2',
  },
  conflict: { suite: 'idempotency', id: 'idempotency.conflict.code', title: 'Conflicting reuse is rejected', level: 'MUST', section: '5.3', rule: 'rule 4' },
  missing: { suite: 'idempotency', id: 'idempotency.missing-key.rejected', title: 'Missing key is rejected', level: 'MUST', section: '5.3', rule: 'rule 1' },
  ttl: { suite: 'idempotency', id: 'idempotency.ttl.declared', title: 'Replay TTL is declared', level: 'MAY', section: '5.3' },
  webhookTag: { suite: 'webhooks', id: 'webhooks.signing.tag', title: 'Webhook signature carries the tag', level: 'MUST', section: '6.2' },
  verify: { suite: 'signing', id: 'signing.request.verify', title: 'Verifies signed requests', level: 'SHOULD', section: '7.1' },
  negative: { suite: 'signing', id: 'signing.vectors.negative', title: 'Rejects negative vectors', level: 'MUST', section: '7.2', rule: 'step 9a' },
} satisfies Record<string, Spec>;

/** An interpretation note (a check resting on a reading of the spec), with agent-looking text in it. */
const LISTED_READING = {
  spec_text: `interface spec 4.3: the same tasks run on both transports ${HOSTILE.script}`,
  reading: `a declared task is listed ${HOSTILE.bidi}`,
};

/** A fresh, consistent RunResult (every call builds new objects). */
export function buildRunFixture(options: { strict?: boolean; baseline?: boolean; withoutHarnessError?: boolean } = {}): RunResult {
  seq = 0;
  const transports: TransportKind[] = ['mcp', 'a2a'];
  const capsOk = mcpExchange(ids.capabilitiesTask, 200, JSON.stringify({ result: { content: [{ type: 'text', text: '{"ok":true}' }] } }));
  const checks: CheckResult[] = [
    check(S.answers, 'mcp', 'pass', 'answered'),
    check(S.answers, 'a2a', 'pass', 'answered'),
    check(S.version, 'mcp', 'pass', 'version 3.1 declared', { evidence: evidence({ exchanges: [capsOk] }) }),
    check(S.version, 'a2a', 'fail', `no ${ids.versionMember} in capabilities: ${HOSTILE.img}`, {
      evidence: evidence({
        expected: { [ids.versionMember]: 'a string like 3.1' },
        actual: { note: HOSTILE.script, nested: { closers: HOSTILE.closers } },
        pointer: `/${ids.versionMember}`,
        exchanges: [a2aExchange(ids.capabilitiesTask, 200, `{"kind":"task","note":"${HOSTILE.textarea}"} ${HOSTILE.control}`)],
        notes: [`payload from artifact; ${HOSTILE.svg}`],
      }),
      root_cause: S.version.id,
    }),
    check(S.listed, 'mcp', 'warn', `task ${HOSTILE.alert} declared but not listed`, {
      evidence: evidence({ expected: ['get_products'], actual: [HOSTILE.alert], pointer: '/tasks' }),
      root_cause: S.listed.id,
      interpretation: LISTED_READING,
    }),
    check(S.listed, 'a2a', 'warn', `skill missing: ${HOSTILE.bidi}`, {
      evidence: evidence({ actual: HOSTILE.bidi }),
      root_cause: S.version.id,
      interpretation: LISTED_READING,
    }),
    check(S.replay, 'mcp', 'fail', `replay differs: ${HOSTILE.cdata} ${HOSTILE.control}`, {
      evidence: evidence({
        expected: { media_buy_id: 'mb-1' },
        actual: { media_buy_id: HOSTILE.entities, quotes: HOSTILE.quotes, lone: HOSTILE.lone },
        pointer: '/media_buy_id',
        exchanges: [
          mcpExchange('create_media_buy', 200, `{"media_buy_id":"mb-1","x":"${HOSTILE.meta}"}`),
          mcpExchange('create_media_buy', 200, `{"media_buy_id":"${HOSTILE.entities}","y":"${HOSTILE.jsUrl}"} ${HOSTILE.lone}`),
        ],
      }),
    }),
    check(S.replay, 'a2a', options.withoutHarnessError ? 'fail' : 'error', `harness error: ${HOSTILE.textarea}`, {
      evidence: evidence({
        exchanges: [a2aExchange('create_media_buy', undefined, '', `timeout after 30000 ms ${HOSTILE.control}`)],
        notes: ['TypeError: boom'],
      }),
    }),
    check(S.conflict, 'mcp', 'blocked', `blocked by ${S.replay.id}: setup step 1 failed: no media buy to reuse`, {
      blocked_by: S.replay.id,
      evidence: evidence({ notes: ['setup step create failed'] }),
    }),
    check(S.conflict, 'a2a', 'gap', 'not run: the run budget ran out before this check started', {
      not_run: true,
      gap: 'run budget',
      evidence: evidence({}),
    }),
    check(S.missing, 'mcp', 'fail', 'accepted a request without idempotency_key', {
      baselined: true,
      evidence: evidence({ expected: { code: 'INVALID_REQUEST' }, actual: { status: 'completed' }, pointer: '' }),
    }),
    check(S.missing, 'a2a', 'pass', 'rejected with INVALID_REQUEST'),
    check(S.ttl, 'mcp', 'info', `replay_ttl_seconds = 86400 ${HOSTILE.astral}`, { evidence: evidence({ actual: 86400 }) }),
    check(S.ttl, 'a2a', 'info', 'replay_ttl_seconds = 86400', { evidence: evidence({ actual: 86400 }) }),
    check(S.webhookTag, 'mcp', 'not_applicable', 'agent does not claim push notifications', { evidence: evidence({}) }),
    check(S.webhookTag, 'a2a', 'not_applicable', 'agent does not claim push notifications', { evidence: evidence({}) }),
    check(S.verify, 'mcp', 'gap', `the agent offers no test controller: ${HOSTILE.jsUrl}`, {
      gap: `test controller ${HOSTILE.img}`,
      evidence: evidence({ notes: [HOSTILE.meta] }),
    }),
    check(S.verify, 'a2a', 'pass', 'verified'),
    check(S.negative, 'mcp', 'pass', 'all negative vectors rejected'),
    check(S.negative, 'a2a', 'gap', 'not run: the run budget ran out before this check started', { not_run: true, gap: 'run budget', evidence: evidence({}) }),
  ];
  const suites: SuiteResult[] = [
    suite('capabilities', 'Capability discovery', checks, transports),
    suite('idempotency', `Idempotency ${HOSTILE.script}`, checks, transports),
    suite('webhooks', 'Webhook delivery', checks, transports),
    suite('signing', 'Request signing', checks, transports),
    suite('schemas', 'Response schemas', checks, transports),
  ];
  const duration = 4321;
  return {
    schema_version: '1.2',
    harness: { name: 'proto-comply', version: '0.1.0' },
    agent_url: HOSTILE_AGENT_URL,
    token: DEFAULT_TOKEN,
    transports,
    target: { requested_compliance_target: '3.0', explicit: true, agent_declared: { supported_versions: ['3.0'], major_versions: [3] } },
    transport_info: [
      {
        transport: 'mcp',
        endpoint: 'https://agent.example/mcp',
        reachable: true,
        auth_required: false,
        session: 'abcd…',
        sessions_opened: 1,
        server: `evil-server ${HOSTILE.script}`,
        declared_tasks: [ids.capabilitiesTask, 'create_media_buy', HOSTILE.img],
      },
      {
        transport: 'a2a',
        endpoint: HOSTILE_AGENT_URL,
        reachable: true,
        auth_required: false,
        declared_tasks: [ids.capabilitiesTask],
        problem: `agent card oddity: ${HOSTILE.textarea}`,
      },
    ],
    overall_status: 'failing',
    coverage: coverageOf(checks, transports, 60),
    lifecycle_stage: 'testing',
    headline: `4 MUST failures on ${HOSTILE.img}`,
    seed: 'seed-7f3a',
    started_at: at(0),
    finished_at: at(duration),
    duration_ms: duration,
    command: `proto-comply run --agent '${HOSTILE_AGENT_URL}' --seed seed-7f3a --budget 60`,
    selection: { suites: ['capabilities', 'idempotency', 'webhooks', 'signing', 'schemas'], budget_s: 60, strict: options.strict ?? false },
    counts: tallyCounts(checks),
    suites,
    checks,
    ...(options.baseline ? { baseline: fixtureBaseline() } : {}),
  };
}

/** The baseline block matching the fixture's checks: one expected, one stale, one unused entry. */
function fixtureBaseline(): NonNullable<RunResult['baseline']> {
  return {
    file: `ci/baseline-${HOSTILE.quotes}.yaml`,
    entries: [
      { check_id: S.missing.id, transport: 'mcp', reason: `JIRA-1: ${HOSTILE.img}`, status: 'expected', matched: 1 },
      { check_id: S.answers.id, reason: `fixed since: ${HOSTILE.script}`, status: 'stale', matched: 0 },
      { check_id: 'webhooks.retry.backoff', reason: 'not selected in this run', status: 'unused', matched: 0 },
    ],
  };
}

/** A run against an agent that could not be reached: no checks at all. */
export function buildUnreachableFixture(): RunResult {
  const run = buildRunFixture();
  run.checks = [];
  run.counts = emptyCounts();
  run.suites = run.suites.map((s) => ({ suite_id: s.suite_id, title: s.title, status: 'untested', counts: emptyCounts(), by_transport: {} }));
  run.transport_info = run.transport_info.map((t) => ({ ...t, reachable: false, declared_tasks: [], problem: `connect ECONNREFUSED ${HOSTILE.img}` }));
  run.overall_status = 'unreachable';
  run.coverage = coverageOf([], run.transports);
  run.headline = `unreachable: connect ECONNREFUSED ${HOSTILE.script}`;
  return run;
}
