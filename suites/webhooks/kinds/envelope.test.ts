/**
 * Envelope detection and the A2A view (each_envelope, spec 6.2), the start-of-flight announcement
 * rule and the config-switch rule with its bound (spec 6.5 rule 11), on hand-made snapshots.
 */
import { describe, expect, it } from 'vitest';
import type { ExpectationDef } from '../../../harness/core/engine/model.js';
import type { CheckContext, Judgement, Subject } from '../../../harness/core/engine/kinds/types.js';
import { KindRegistry } from '../../../harness/core/engine/kinds/registry.js';
import type { CaptureSnapshot, DeliveryView } from '../../../harness/core/webhooks/emission/snapshot.js';
import { envelopeKey } from '../../../harness/core/webhooks/emission/snapshot.js';
import { protocolIds } from '../../../harness/core/token.js';
import webhooksPlugin from '../plugin.js';
import { a2aView, detectEnvelope, normalizeState } from './envelope.js';
import { MAX_FIRES_TO_OLD_URL, RULES } from '../../../harness/core/webhooks/emission/rules.js';

const ids = protocolIds('proto');
const KINDS = new KindRegistry([webhooksPlugin]);

function context(over: Partial<CheckContext> = {}): CheckContext {
  const ctx = {
    ids,
    steps: {},
    profile: { capabilities: { webhook_signing: { supported: true } } },
    expand: (v: unknown) => v,
    judge(list: ExpectationDef[] | undefined, subject: Subject): Judgement {
      for (const exp of list ?? []) {
        const j = KINDS.expectationKind(exp.kind)!.evaluate(exp, subject, ctx);
        if (!j.ok) return j;
      }
      return { ok: true };
    },
    ...over,
  } as unknown as CheckContext;
  return ctx;
}

function view(n: number, body: unknown, extra: Partial<DeliveryView> = {}): DeliveryView {
  return { n, received_at: '', answered: 200, body, raw: JSON.stringify(body), headers: {}, verified: true, ...extra, idempotency_key: envelopeKey(body) };
}

function snap(deliveries: DeliveryView[]): CaptureSnapshot {
  const keys = [...new Set(deliveries.map((d) => d.idempotency_key).filter((k): k is string => !!k))];
  return { capture: 'c', url: 'u', mode: 'signature', count: deliveries.length, keys, deliveries, first: deliveries[0]?.body ?? null, last: null };
}

const mcp = { idempotency_key: 'k-mcp-0123456789ab', task_id: 't1', operation_id: 'op', status: 'completed', result: { media_buy_id: 'mb1' } };
const task = (state: string, parts: unknown[], message?: unknown[]) => ({
  kind: 'task',
  id: 'a2a-1',
  contextId: 'ctx-1',
  status: { state, timestamp: '2026-01-01T00:00:00Z', ...(message ? { message: { parts: message } } : {}) },
  artifacts: parts.length ? [{ artifactId: 'r', parts }] : [],
  metadata: { idempotency_key: 'k-a2a-0123456789ab', operation_id: 'op' },
});

function judge(exp: Record<string, unknown>, deliveries: DeliveryView[], ctx = context()): Judgement {
  return KINDS.expectationKind('each_envelope')!.evaluate({ kind: 'each_envelope', ...exp }, { record: { payload: snap(deliveries) } }, ctx);
}

describe('each_envelope (spec 6.2)', () => {
  it('detects the format: status a string with task_id is MCP, status an object with state is A2A', () => {
    expect(detectEnvelope(mcp)).toBe('mcp');
    expect(detectEnvelope(task('completed', []))).toBe('a2a');
    expect(detectEnvelope({ status: 'completed' })).toBeUndefined();
    expect(detectEnvelope({ status: { code: 1 } })).toBeUndefined();
    expect(envelopeKey(task('completed', []))).toBe('k-a2a-0123456789ab');
    expect(envelopeKey({ metadata: { idempotency_key: 'x' }, status: 'completed' })).toBeUndefined();
  });

  it('reads the A2A view where spec 6.2 puts things, in either A2A spelling', () => {
    for (const [state, want] of [
      ['TASK_STATE_COMPLETED', 'completed'],
      ['completed', 'completed'],
      ['INPUT_REQUIRED', 'input-required'],
      ['input-required', 'input-required'],
    ])
      expect(normalizeState(state!)).toBe(want);
    const final = a2aView(task('TASK_STATE_COMPLETED', [{ kind: 'text', text: 'x' }, { kind: 'data', data: { a: 1 } }, { data: { a: 2 } }]));
    expect(final).toMatchObject({ task_id: 'a2a-1', context_id: 'ctx-1', state: 'completed', final: true, result: { a: 2 } });
    // A final result outside artifacts[0] is not where spec 6.2 puts it.
    expect(a2aView(task('completed', [], [{ kind: 'data', data: { a: 3 } }]))).not.toHaveProperty('result');
    const progress = a2aView({
      kind: 'status-update',
      taskId: 'a2a-2',
      contextId: 'c',
      status: {
        state: 'working',
        message: {
          parts: [
            { kind: 'data', data: { percentage: 5 } },
            { kind: 'data', data: {} },
          ],
        },
      },
    });
    expect(progress).toMatchObject({ task_id: 'a2a-2', state: 'working', final: false, result: { percentage: 5 } });
  });

  it('judges each format on its own shape, and refuses a format the check does not accept or a body of neither', () => {
    const exp = {
      mcp: [{ kind: 'field', path: '/operation_id', equals: 'op' }],
      a2a: [{ kind: 'field', path: '/result/media_buy_id', equals: 'mb1' }],
    };
    expect(judge(exp, [view(1, mcp), view(2, task('completed', [{ kind: 'data', data: { media_buy_id: 'mb1' } }]))]).ok).toBe(true);
    expect(judge(exp, [view(1, task('completed', [], [{ kind: 'data', data: { media_buy_id: 'mb1' } }]))]).message).toMatch(
      /a2a envelope.*result\/media_buy_id/,
    );
    expect(judge({ ...exp, formats: ['a2a'] }, [view(1, mcp)]).message).toMatch(/arrived in the MCP envelope.*expected the A2A envelope/);
    expect(judge(exp, [view(1, { hello: 'world' })]).message).toMatch(/neither/);
    expect(judge(exp, []).ok).toBe(true);
  });
});

describe('buy_announced (spec 3.1, 6.4)', () => {
  const announce = { idempotency_key: 'k1-0123456789abcdef', task_id: 'mb1', status: 'completed', result: { media_buy_id: 'mb1', status: 'active' } };
  it('wants a delivery naming the buy in the status, verified when the agent declares webhook signing', () => {
    const p = { media_buy_id: 'mb1', status: 'active' };
    expect(RULES.buy_announced!(snap([view(1, announce)]), p, context()).ok).toBe(true);
    expect(RULES.buy_announced!(snap([view(1, { deep: [{ x: { media_buy_id: 'mb1', media_buy_status: 'active' } }] })]), p, context()).ok).toBe(true);
    expect(RULES.buy_announced!(snap([view(1, { ...announce, result: { media_buy_id: 'mb1', status: 'pending_start' } })]), p, context()).message).toMatch(
      /no delivery names media buy "mb1" with status "active"/,
    );
    expect(RULES.buy_announced!(snap([]), p, context()).ok).toBe(false);
    const unsigned = view(1, announce, { verified: false, verify_code: 'webhook_signature_missing' });
    expect(RULES.buy_announced!(snap([unsigned]), p, context()).message).toMatch(/does not verify: webhook_signature_missing/);
    const noSigning = context({ profile: { capabilities: {} } } as Partial<CheckContext>);
    expect(RULES.buy_announced!(snap([unsigned]), p, noSigning).ok).toBe(true);
  });
});

describe('switched (spec 6.5 rule 11)', () => {
  const report = (key: string, seq: number) => view(seq, { idempotency_key: key, task_id: 'mb1', status: 'completed', result: { sequence_number: seq } });
  const before = snap([report('k1', 1)]);
  it(`lets at most ${MAX_FIRES_TO_OLD_URL} fires after the change reach the old URL, before every fire at the new one`, () => {
    const judgeSwitch = (old: DeliveryView[], fresh: DeliveryView[]) =>
      RULES.switched!(snap(fresh), { old: snap(old), before, max_old: MAX_FIRES_TO_OLD_URL }, context());
    expect(judgeSwitch([report('k1', 1)], [report('k2', 2), report('k3', 3), report('k4', 4)]).ok).toBe(true);
    expect(judgeSwitch([report('k1', 1), report('k2', 2), report('k3', 3)], [report('k4', 4)]).ok).toBe(true);
    // Retries of the event before the change are not fires after it.
    expect(judgeSwitch([report('k1', 1), report('k1', 1), report('k2', 2)], [report('k3', 3)]).ok).toBe(true);
    expect(judgeSwitch([report('k1', 1), report('k2', 2), report('k3', 3), report('k4', 4)], [report('k5', 5)]).message).toMatch(
      /3 fires after the change still reached the old URL; at most 2/,
    );
    expect(judgeSwitch([report('k1', 1), report('k3', 3)], [report('k2', 2)]).message).toMatch(/switched back/);
    expect(judgeSwitch([report('k1', 1), report('k2', 2)], []).message).toMatch(/no fire reached the new URL/);
  });
});

describe('signing_declared (digest 1.15)', () => {
  const signed = view(1, mcp, { headers: { 'signature-input': 'sig1=("@method");keyid="k"', signature: 'sig1=:AA:' } });
  const unsigned = view(2, mcp);
  it('fails a signed delivery from a seller that declares webhook_signing.supported false or no block', () => {
    expect(RULES.signing_declared!(snap([signed, unsigned]), {}, context()).ok).toBe(true);
    const declaredFalse = context({ profile: { capabilities: { webhook_signing: { supported: false } } } } as unknown as Partial<CheckContext>);
    expect(RULES.signing_declared!(snap([signed]), {}, declaredFalse).message).toMatch(/delivery 1: is signed with RFC 9421.*supported false/);
    const none = context({ profile: { capabilities: {} } } as Partial<CheckContext>);
    expect(RULES.signing_declared!(snap([signed]), {}, none).message).toMatch(/no webhook_signing block/);
    expect(RULES.signing_declared!(snap([unsigned]), {}, none).ok).toBe(true);
    expect(RULES.signing_declared!(snap([]), {}, none).ok).toBe(false);
  });
});
