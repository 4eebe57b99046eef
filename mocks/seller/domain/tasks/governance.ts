/**
 * Governance: check_governance (pass, escalation to a human, or approval with conditions) and
 * get_plan_audit_logs, whose entries (`timestamp`, `actor`, `action`, interface spec 2.6) record
 * every check made against a plan.
 */
import { randomUUID } from 'node:crypto';
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
      return completed({ plan_id: args.plan_id, entries });
    },
  };

  return [checkGovernance, getAuditLogs];
}
