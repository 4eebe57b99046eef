/**
 * A member's organization (interface spec 4.1, 5):
 *
 *   POST /api/organizations   {name, company_type?, revenue_tier?}: creates or replaces the caller's organization → 201
 *
 * A member key's organization is the member's (members are the service's organizations); the
 * operator has none (400). Without a key: 401.
 */
import { requireKey } from '../http/callers.js';
import { HttpError, readObject, send } from '../http/respond.js';
import type { Route } from '../http/router.js';
import type { ServiceContext } from './context.js';

const FIELDS = new Set(['name', 'company_type', 'revenue_tier']);
const MAX_TEXT = 200;

function text(body: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) {
    if (required) throw new HttpError(400, `${name} is required`);
    return undefined;
  }
  if (typeof v !== 'string' || v.trim() === '' || v.length > MAX_TEXT || /[\u0000-\u001f\u007f]/.test(v))
    throw new HttpError(400, `${name} must be a non-empty string of at most ${MAX_TEXT} characters without control characters`);
  return v;
}

export function organizationRoutes(s: ServiceContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/organizations',
      access: 'member',
      summary: "Create or replace the caller's organization (its name, company type, revenue tier)",
      handle: async ({ req, res, caller }) => {
        requireKey(caller);
        if (caller.kind !== 'member') throw new HttpError(400, "an operator key belongs to no organization: use a member's key (--member-key)");
        const body = await readObject(req);
        const unknown = Object.keys(body).filter((k) => !FIELDS.has(k));
        if (unknown.length) throw new HttpError(400, `unknown field(s) ${unknown.join(', ')} (fields: ${[...FIELDS].join(', ')})`);
        const companyType = text(body, 'company_type', false);
        const revenueTier = text(body, 'revenue_tier', false);
        const org = await s.store.putOrganization(
          { member: caller.name, name: text(body, 'name', true)!, ...(companyType ? { companyType } : {}), ...(revenueTier ? { revenueTier } : {}) },
          s.now(),
        );
        send(res, 201, {
          member: org.member,
          name: org.name,
          company_type: org.companyType ?? null,
          revenue_tier: org.revenueTier ?? null,
          updated_at: org.updatedAt,
        });
      },
    },
  ];
}
