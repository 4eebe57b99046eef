/**
 * Governance: check_governance (pass, escalation to a human, or approval with conditions; an
 * approval carries a signed token, a compact JWS in `governance_context`, interface spec 4.3) and
 * get_plan_audit_logs, whose entries (`timestamp`, `actor`, `action`, interface spec 2.6) record
 * every check made against a plan.
 */
import { randomUUID, sign } from 'node:crypto';
import type { SigningKey } from '../../../../harness/core/signing/keys/keys.js';
import { z } from 'zod';
import { TaskFailure } from '../errors.js';
import type { SellerServices } from '../services.js';
import { type TaskDef, completed } from '../task-def.js';
import { httpUrl, taskSchema } from '../validation.js';

const KIND = 'plan_audit';
/** Spend above this asks for a human (sandbox policy). */
const ESCALATION_BUDGET = 1_000_000;
/** Spend above this is approved with conditions. */
const CONDITIONS_BUDGET = 250_000;

export interface AuditEntry {
  timestamp: string;
  actor: string;
  action: string;
  details?: Record<string, unknown>;
  reason?: string;
  conditions?: string[];
}

const checkSchema = taskSchema({
  plan_id: z.string().min(1).max(255),
  caller: httpUrl,
  tool: z.string().min(1).max(255),
  payload: z.record(z.string(), z.unknown()),
});
const auditSchema = taskSchema({ plan_id: z.string().min(1).max(255) });

/** Total budget of a governed payload: `total_budget`, `budget`, or the sum of `packages[].budget`. */
function budgetOf(payload: Record<string, unknown>): number {
  for (const key of ['total_budget', 'budget']) {
    const v = payload[key];
    if (typeof v === 'number') return v;
    if (v && typeof v === 'object' && typeof (v as { total?: unknown }).total === 'number') return (v as { total: number }).total;
  }
  const packages = payload.packages;
  if (Array.isArray(packages)) {
    return packages.reduce((sum: number, p) => sum + (typeof p?.budget === 'number' ? p.budget : 0), 0);
  }
  return 0;
}

/** An EdDSA compact JWS (RFC 7515) of `claims`, signed with node:crypto (the harness verifies with jose). */
function compactJws(key: SigningKey, claims: Record<string, unknown>): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${b64({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' })}.${b64(claims)}`;
  return `${input}.${sign(null, Buffer.from(input), key.privateKey).toString('base64url')}`;
}

export function governanceTasks(s: SellerServices): TaskDef[] {
  const checkGovernance: TaskDef<z.infer<typeof checkSchema>> = {
    name: 'check_governance',
    description: 'Check a planned action against the plan: approve, approve with conditions, or escalate to a human.',
    idempotency: 'read',
    schema: checkSchema,
    run({ args, caller, clockScope }) {
      if (s.faults.has('governance-check-fails'))
        throw new TaskFailure({ code: 'INTERNAL_ERROR', message: 'the governance engine is unavailable', recovery: 'transient' });
      const budget = budgetOf(args.payload);
      const checkId = `chk_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
      let result: Record<string, unknown>;
      if (budget > ESCALATION_BUDGET) {
        result = { status: 'escalated', explanation: `budget ${budget} exceeds the plan's automatic approval limit; a human reviewer must approve` };
      } else if (budget > CONDITIONS_BUDGET) {
        result = { status: 'approved', explanation: 'approved with conditions', conditions: ['daily spend must not exceed 10% of the total budget'] };
      } else {
        result = { status: 'approved', explanation: 'within plan limits' };
      }
      if (result.status === 'approved') {
        // The buggy agent signs with a key it never published, under its published governance kid.
        const { governance, unpublished } = s.webhooks.keys;
        const key = s.faults.has('governance-token-forged') ? { ...unpublished, kid: governance.kid } : governance;
        const iat = Math.floor(Date.now() / 1000);
        const claims = { iss: s.catalog.agentUrl, sub: args.plan_id, check_id: checkId, tool: args.tool, status: result.status, iat, exp: iat + 3600 };
        result.governance_context = compactJws(key, claims);
        // The released 3.0 schema requires when an approval lapses: the token's expiry.
        result.expires_at = new Date(claims.exp * 1000).toISOString();
      }
      const entries = s.records.get<AuditEntry[]>(KIND, caller.principal, args.plan_id) ?? [];
      entries.push({
        timestamp: s.clock.iso(clockScope),
        actor: args.caller,
        action: 'check_governance',
        details: { check_id: checkId, tool: args.tool, status: result.status },
        ...(Array.isArray(result.conditions) ? { conditions: result.conditions as string[] } : {}),
      });
      s.records.put(KIND, caller.principal, args.plan_id, '', entries.slice(-1000), s.clock.now());
      return completed({ check_id: checkId, plan_id: args.plan_id, tool: args.tool, ...result });
    },
  };

  const getAuditLogs: TaskDef<z.infer<typeof auditSchema>> = {
    name: 'get_plan_audit_logs',
    description: 'Audit trail of a plan: one entry per governance check (timestamp, actor, action).',
    idempotency: 'read',
    schema: auditSchema,
    run({ args, caller }) {
      const entries = s.faults.has('audit-log-forgets-checks') ? [] : (s.records.get<AuditEntry[]>(KIND, caller.principal, args.plan_id) ?? []);
      // `entries` as interface spec 2.6 shows them; `plans` (one summary per plan) as the released 3.0 schema requires.
      const plan = {
        plan_id: args.plan_id,
        plan_version: 1,
        status: 'active',
        budget: {},
        governed_actions: [],
        summary: { checks_performed: entries.length },
      };
      return completed({ plan_id: args.plan_id, entries, plans: [plan] });
    },
  };

  return [checkGovernance, getAuditLogs];
}
