/**
 * Storyboards of one agent (digest 6.3):
 *
 *   GET  /api/registry/agents/{encodedUrl}/applicable-storyboards             public: what will be graded, before anything runs
 *   POST /api/registry/agents/{encodedUrl}/storyboard/{sid}/run                owner: run one storyboard now (in the history; never the status)
 *   POST /api/registry/agents/{encodedUrl}/storyboard/{sid}/step/{stepId}      owner: one step, said (dry run, the default) or run alone
 *   POST /api/registry/agents/{encodedUrl}/storyboard/{sid}/compare            owner: the storyboard on the agent and on the reference agent
 *
 * `{sid}` is a built-in suite's id, or, on a service given a bundle (`--storyboards`), a bundle
 * storyboard's id; unknown → 404. `{stepId}` is a suite's check id or a storyboard step's id,
 * optionally `@mcp` / `@a2a` for one transport (default every transport the agent is registered with).
 * Runs, single steps sent and comparisons share the manual refresh limits (429 `{error, retry_after}`):
 * each makes the agent do what a refresh makes it do. A dry run sends nothing and is not limited.
 * An opted-out agent is refused (409), applicable-storyboards included: it is not tested, nor contacted, at all.
 * `organization_id` of a step is accepted and not used (one organization per service).
 */
import { agentOr404 } from '../http/agent-param.js';
import { type Caller, requireOwner } from '../http/callers.js';
import { HttpError, readObject, send } from '../http/respond.js';
import type { Route } from '../http/router.js';
import { ApplicabilityError, type CatalogStoryboard } from '../storyboard-catalog.js';
import type { StoryboardOps } from '../storyboard-ops.js';
import { badgeOf, comparePhases, profileOf, storyboardHead, storyboardRunBody, summaryOf } from '../storyboard-views.js';
import type { AgentRow } from '../types.js';
import type { ServiceContext } from './context.js';
import { takeManualProbe } from './refresh-limit.js';

const STEP_FIELDS = new Set(['context', 'dry_run', 'organization_id']);

function opsOf(s: ServiceContext): StoryboardOps {
  if (!s.storyboards) throw new HttpError(503, 'this service does not run storyboards itself');
  return s.storyboards;
}

function storyboardOr404(ops: StoryboardOps, raw: string): CatalogStoryboard {
  let sid: string;
  try {
    sid = decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, 'the storyboard id in the path is not URL-encoded correctly');
  }
  const e = ops.catalog.get(sid);
  if (!e)
    throw new HttpError(
      404,
      `no storyboard ${sid} here (${ops.catalog.bundle ? 'the storyboards of the bundle' : 'the built-in suites'}: see applicable-storyboards)`,
    );
  return e;
}

/** The owner's agent, testable now (409 when opted out), and a storyboard of the catalog. */
async function ownedAgent(
  s: ServiceContext,
  params: Record<string, string>,
  caller: Caller,
): Promise<{ agent: AgentRow; entry: CatalogStoryboard; ops: StoryboardOps }> {
  const agent = await agentOr404(s.store, params.encodedUrl!);
  requireOwner(caller, agent.owner, agent.url);
  const ops = opsOf(s);
  const entry = storyboardOr404(ops, params.sid!);
  if (agent.optOut) throw new HttpError(409, `${agent.url} is opted out of compliance testing`);
  return { agent, entry, ops };
}

export function storyboardRoutes(s: ServiceContext): Route[] {
  const base = '/api/registry/agents/{encodedUrl}';
  return [
    {
      method: 'GET',
      path: `${base}/applicable-storyboards`,
      access: 'public',
      summary: 'The storyboards that will be graded on the agent, from its capabilities read now (nothing is run)',
      handle: async ({ res, params }) => {
        const agent = await agentOr404(s.store, params.encodedUrl!);
        const ops = opsOf(s);
        // Opted out: not tested at all, so not contacted either.
        if (agent.optOut) throw new HttpError(409, `${agent.url} is opted out of compliance testing`, {}, { agent_url: agent.url, status: 'opted_out' });
        try {
          send(res, 200, await ops.applicable(agent));
        } catch (e) {
          if (e instanceof ApplicabilityError)
            throw new HttpError(
              e.status,
              e.message,
              {},
              { ...e.extra, agent_url: agent.url, requested_compliance_target: ops.catalog.target, proto_version: ops.catalog.protoVersion },
            );
          throw e;
        }
      },
    },
    {
      method: 'POST',
      path: `${base}/storyboard/{sid}/run`,
      access: 'owner',
      summary: 'Run one storyboard against the agent now (recorded in the history; the status is not changed)',
      handle: async ({ res, params, caller }) => {
        const { agent, entry, ops } = await ownedAgent(s, params, caller);
        await takeManualProbe(s, agent, caller);
        const done = await ops.run(agent, entry);
        if (!done) throw new HttpError(409, `a probe of ${agent.url} is already running; try again when it is done`);
        send(res, 200, storyboardRunBody({ entry, catalog: ops.catalog, agent, runId: done.runId, run: done.result }));
      },
    },
    {
      method: 'POST',
      path: `${base}/storyboard/{sid}/step/{stepId}`,
      access: 'owner',
      summary: 'One step of a storyboard: what it would send (dry run, the default), or run alone',
      handle: async ({ req, res, params, caller }) => {
        const { agent, entry, ops } = await ownedAgent(s, params, caller);
        const body = await readObject(req, true);
        const unknown = Object.keys(body).filter((k) => !STEP_FIELDS.has(k));
        if (unknown.length) throw new HttpError(400, `unknown field(s) ${unknown.join(', ')} (fields: ${[...STEP_FIELDS].join(', ')})`);
        if (body.dry_run !== undefined && typeof body.dry_run !== 'boolean') throw new HttpError(400, 'dry_run must be a boolean');
        const context = body.context ?? {};
        if (context === null || typeof context !== 'object' || Array.isArray(context)) throw new HttpError(400, 'context must be an object of $context values');
        if (body.organization_id !== undefined && typeof body.organization_id !== 'string') throw new HttpError(400, 'organization_id must be a string');
        let raw: string;
        try {
          raw = decodeURIComponent(params.stepId!);
        } catch {
          throw new HttpError(400, 'the step id in the path is not URL-encoded correctly');
        }
        const found = ops.locate(entry, raw);
        if (!found) throw new HttpError(404, `storyboard ${entry.id} has no step ${raw}`);
        if (found.transport && !agent.transports.includes(found.transport))
          throw new HttpError(404, `${agent.url} is not registered with ${found.transport} (its transports: ${agent.transports.join(', ')})`);
        const transports = found.transport ? [found.transport] : agent.transports;
        const plan = ops.plan(agent, found.step, transports, context as Record<string, unknown>);
        const head = {
          proto_version: ops.catalog.protoVersion,
          requested_compliance_target: ops.catalog.target,
          storyboard: storyboardHead(entry),
          step_id: found.step.stepId,
          transports,
        };
        if (body.dry_run !== false) {
          send(res, 200, { ...head, dry_run: true, sent: false, requests: plan.requests, needs: plan.needs, notes: plan.notes });
          return;
        }
        // A storyboard step that needs an earlier step's state cannot run alone: said before anything is sent.
        if (found.step.kind === 'storyboard' && plan.needs.length)
          throw new HttpError(
            409,
            `step ${raw} needs the state of earlier steps, which a single step does not have: ${plan.needs.join('; ')}`,
            {},
            {
              ...head,
              dry_run: false,
              sent: false,
              outcome: 'blocked',
              needs: plan.needs,
            },
          );
        await takeManualProbe(s, agent, caller);
        const results = await ops.runStep(agent, entry, found.step, transports, context as Record<string, unknown>);
        const views = results.map((c) => ({
          transport: c.transport,
          outcome: c.outcome,
          message: c.message,
          duration_ms: Math.round(c.duration_ms),
          ...(c.blocked_by ? { blocked_by: c.blocked_by } : {}),
          exchanges: (c.evidence?.exchanges ?? []).slice(0, 10).map((x) => ({
            purpose: x.purpose,
            request: { method: x.request.method, url: x.request.url, body: x.request.body ?? null },
            response: x.response ? { status: x.response.status, body: x.response.body ?? null } : null,
            ...(x.error ? { error: x.error } : {}),
          })),
        }));
        if (views.length > 0 && views.every((v) => v.outcome === 'blocked'))
          throw new HttpError(
            409,
            `step ${raw} was blocked: ${views[0]!.message}`,
            {},
            { ...head, dry_run: false, sent: true, outcome: 'blocked', results: views },
          );
        send(res, 200, { ...head, dry_run: false, sent: true, results: views });
      },
    },
    {
      method: 'POST',
      path: `${base}/storyboard/{sid}/compare`,
      access: 'owner',
      summary: 'Run one storyboard against the agent and the reference agent, side by side per step',
      handle: async ({ res, params, caller }) => {
        const { agent, entry, ops } = await ownedAgent(s, params, caller);
        await takeManualProbe(s, agent, caller);
        const started = performance.now();
        const { user, reference, ref } = await ops.compare(agent, entry);
        const phases = comparePhases(entry, user, reference);
        send(res, 200, {
          storyboard: storyboardHead(entry),
          user_agent: { url: agent.url, profile: profileOf(user), summary: summaryOf(entry, user) },
          reference_agent: { url: ref.url, name: ref.name, builtin: ref.builtin, profile: profileOf(reference), summary: summaryOf(entry, reference) },
          proto_version: ops.catalog.protoVersion,
          requested_compliance_target: ops.catalog.target,
          ...badgeOf(agent, ops.catalog),
          phases,
          differences: phases.reduce((n, p) => n + (p.steps as Array<{ same: boolean }>).filter((x) => !x.same).length, 0),
          total_duration_ms: Math.round(performance.now() - started),
        });
      },
    },
  ];
}
