/**
 * `webhook_flow`: a sequence of steps run ONCE per run and transport and shared by every check
 * that names the same flow (creating a buy, making the seller fire, capturing what arrives costs
 * several calls; fifteen checks judge the same task webhook). The first check to need the flow
 * runs it; the others wait for it and reuse its result:
 *
 * - the nested steps run in their own template scope (`<transport> flow:<name>`), so their
 *   generated keys and names do not depend on which check ran first, and every alias they used
 *   is handed to each check (a later `{{uuid:operation}}` in the check means the flow's value);
 * - their saved records become the check's `{{steps.<id>...}}`;
 * - their exchanges and notes are the evidence of every check that uses the flow;
 * - their verdict (ok, or the first failing step) is each check's verdict for this step.
 *
 * A flow must be a check's first step (aliases the check used before it would not be replaced).
 */
import type { StepDef } from '../../../harness/core/engine/model.js';
import type { CheckContext, StepKind, StepRecord, StepVerdict } from '../../../harness/core/engine/kinds/types.js';
import { ScopedRandom } from '../../../harness/core/engine/rng.js';
import type { WireExchange } from '../../../harness/core/transport/types.js';

/** A ScopedRandom that remembers every alias it handed out. */
class RecordingRandom extends ScopedRandom {
  readonly handed = new Map<string, [kind: string, name: string, value: string]>();

  override alias(kind: string, name: string, make: (r: ScopedRandom) => string): string {
    const value = super.alias(kind, name, make);
    this.handed.set(`${kind}:${name}`, [kind, name, value]);
    return value;
  }
}

interface FlowResult {
  verdict: StepVerdict;
  /** 1-based index of the failing nested step, for messages. */
  failedStep?: number;
  steps: Record<string, StepRecord>;
  aliases: [string, string, string][];
  exchanges: WireExchange[];
  notes: string[];
}

async function runFlow(ctx: CheckContext, name: string, nested: StepDef[]): Promise<FlowResult> {
  const random = new RecordingRandom(ctx.run.seed, `${ctx.kind}\u0000flow:${name}`);
  const steps: Record<string, StepRecord> = {};
  const firstExchange = ctx.exchanges.length;
  const firstNote = ctx.notes.length;
  const run = await ctx.runSteps(nested, { steps, random });
  // A failing nested setup step blocks every check of the flow by that step's prerequisite; a
  // failing nested probe stays a failure, which each check turns into fail or blocked by the
  // role of its flow step.
  const verdict: StepVerdict =
    run.verdict.status === 'failed' && run.failedRole === 'setup'
      ? { ...run.verdict, status: 'unmet', blocked_by: run.failedPrerequisite }
      : run.verdict.status === 'unmet' && !run.verdict.blocked_by
        ? { ...run.verdict, blocked_by: run.failedPrerequisite }
        : run.verdict;
  return {
    verdict,
    failedStep: run.failedStep,
    steps,
    aliases: [...random.handed.values()],
    exchanges: ctx.exchanges.slice(firstExchange),
    notes: ctx.notes.slice(firstNote),
  };
}
export const webhookFlow: StepKind = {
  name: 'webhook_flow',
  fields: {
    /** Flow name: checks naming the same flow share one run of it per transport. */
    flow: { type: 'string', pattern: '^[a-z0-9-]+$' },
    steps: { type: 'array', minItems: 1, items: { type: 'object', required: ['kind'] } },
  },
  required: ['flow', 'steps'],
  stepFields: ['steps'],
  async run(step, ctx) {
    const name = step.flow as string;
    const first = ctx.exchanges.length;
    // The flow's own steps lend their slot while they wait for deliveries; so do the checks
    // waiting for the flow (RunResources.get).
    const result = await ctx.resources.get(
      `webhooks.flow\u0000${ctx.kind}\u0000${name}`,
      async () => ({
        value: await runFlow(ctx, name, step.steps as StepDef[]),
        close: async () => {},
      }),
      ctx.idle,
    );
    // The check that ran the flow already holds its exchanges; the others get copies as evidence.
    if (ctx.exchanges.length === first) ctx.exchanges.push(...result.exchanges);
    for (const note of result.notes) if (!ctx.notes.includes(note)) ctx.notes.push(note);
    for (const [kind, alias, value] of result.aliases) ctx.random.alias(kind, alias, () => value);
    Object.assign(ctx.steps, structuredClone(result.steps));
    if (result.verdict.status === 'ok') return { verdict: result.verdict };
    const where = `shared flow ${name}, step ${result.failedStep}`;
    return { verdict: 'message' in result.verdict ? { ...result.verdict, message: `${where}: ${result.verdict.message}` } : result.verdict };
  },
};
