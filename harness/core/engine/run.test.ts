/**
 * Scheduling of a run (engine/run.ts): suites of the normal phase overlap, a check waits only for
 * its earlier prerequisites, `last` suites wait for everything, and a check that only waits lends
 * its concurrency slot. Driven by a scripted in-process agent and two timing step kinds.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { KindRegistry } from './kinds/registry.js';
import type { SchemaChecker, StepKind } from './kinds/types.js';
import { validateSuite } from './loader.js';
import { executeRun } from './run.js';
import type { SuiteDef } from './model.js';
import { ScriptedAgent } from './testing/scripted-transport.js';

interface Span {
  start: number;
  end: number;
}

/** Step kinds that note when each check's step started and ended. */
function timingKinds(spans: Map<string, Span>): StepKind[] {
  const note = async (checkId: string, wait: () => Promise<unknown>) => {
    const start = performance.now();
    await wait();
    spans.set(checkId, { start, end: performance.now() });
    return { verdict: { status: 'ok' as const } };
  };
  return [
    // Busy: holds the check's slot for `ms` (as a call to the agent would).
    { name: 'busy', fields: { ms: { type: 'integer' } }, required: ['ms'], run: (step, ctx) => note(ctx.checkId, () => sleep(step.ms as number)) },
    // Idle: waits `ms` without calling the agent, lending the slot.
    {
      name: 'idle',
      waits: true,
      fields: { ms: { type: 'integer' } },
      required: ['ms'],
      run: (step, ctx) => note(ctx.checkId, () => ctx.idle(() => sleep(step.ms as number))),
    },
  ];
}

const noSchemas: SchemaChecker = {
  validateTaskResponse: () => ({ valid: true, errors: [] }),
  validate: () => ({ valid: true, errors: [] }),
  hasTaskSchema: () => true,
  taskSchemaName: (task) => `${task}-response`,
  hasSchema: () => true,
};

type CheckSpec = { id: string; steps: Record<string, unknown>[]; serial?: boolean };

async function runSuites(defs: { id: string; order?: string; checks: CheckSpec[] }[], concurrency: number) {
  const spans = new Map<string, Span>();
  const kinds = new KindRegistry([{ id: 'timing', file: new URL('file:///none'), stepKinds: timingKinds(spans) }]);
  const suites: SuiteDef[] = defs.map((d) =>
    validateSuite(
      {
        id: d.id,
        title: d.id,
        ...(d.order ? { order: d.order } : {}),
        checks: d.checks.map((c) => ({ title: c.id, level: 'MUST', spec: { doc: 'interface-spec', section: '7' }, ...c })),
      },
      'test',
      kinds,
    ),
  );
  const run = await executeRun({
    agentUrl: 'scripted://agent',
    token: 'proto',
    transports: [new ScriptedAgent('mcp', () => ({ payload: {} }))],
    transportExplicit: true,
    suites,
    kinds,
    seed: '1',
    concurrency,
    strict: false,
    authTokenSet: false,
    command: 'test',
    schemas: noSchemas,
  });
  return { run, span: (id: string) => spans.get(id)! };
}

describe('run scheduling', () => {
  it('normal suites overlap; a check waits for its earlier prerequisite; a last suite waits for everything', async () => {
    const { run, span } = await runSuites(
      [
        { id: 'a', checks: [{ id: 'a.slow', steps: [{ kind: 'busy', ms: 300 }] }] },
        {
          id: 'b',
          checks: [
            { id: 'b.free', steps: [{ kind: 'busy', ms: 10 }] },
            { id: 'b.after', steps: [{ kind: 'busy', ms: 10, prerequisite: 'a.slow' }] },
          ],
        },
        { id: 'z', order: 'last', checks: [{ id: 'z.end', steps: [{ kind: 'busy', ms: 1 }] }] },
      ],
      2,
    );
    expect(run.checks.map((c) => c.outcome)).toEqual(['pass', 'pass', 'pass', 'pass']);
    expect(span('b.free').end).toBeLessThan(span('a.slow').end);
    expect(span('b.after').start).toBeGreaterThanOrEqual(span('a.slow').end);
    expect(span('z.end').start).toBeGreaterThanOrEqual(Math.max(span('a.slow').end, span('b.after').end, span('b.free').end));
  });

  it('serial checks run after the rest of their suite, one at a time', async () => {
    const { span } = await runSuites(
      [
        {
          id: 'a',
          checks: [
            { id: 'a.one', serial: true, steps: [{ kind: 'busy', ms: 30 }] },
            { id: 'a.par', steps: [{ kind: 'busy', ms: 60 }] },
            { id: 'a.two', serial: true, steps: [{ kind: 'busy', ms: 10 }] },
          ],
        },
      ],
      4,
    );
    expect(span('a.one').start).toBeGreaterThanOrEqual(span('a.par').end);
    expect(span('a.two').start).toBeGreaterThanOrEqual(span('a.one').end);
  });

  it('with one slot, a waiting check lends it: another check runs inside the wait', async () => {
    const { span } = await runSuites(
      [
        { id: 'a', checks: [{ id: 'a.waits', steps: [{ kind: 'idle', ms: 300 }] }] },
        { id: 'b', checks: [{ id: 'b.busy', steps: [{ kind: 'busy', ms: 20 }] }] },
      ],
      1,
    );
    expect(span('b.busy').start).toBeGreaterThanOrEqual(span('a.waits').start);
    expect(span('b.busy').end).toBeLessThan(span('a.waits').end);
  });

  it('with one slot and no waiting, checks run one at a time', async () => {
    const { span } = await runSuites(
      [
        { id: 'a', checks: [{ id: 'a.busy', steps: [{ kind: 'busy', ms: 50 }] }] },
        { id: 'b', checks: [{ id: 'b.busy', steps: [{ kind: 'busy', ms: 50 }] }] },
      ],
      1,
    );
    const [first, second] = [span('a.busy'), span('b.busy')].sort((x, y) => x.start - y.start);
    expect(second!.start).toBeGreaterThanOrEqual(first!.end);
  });
});
