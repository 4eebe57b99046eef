/**
 * `{{active_operator:<step>}}`: the `operator` of the first account the sync_accounts step `<step>`
 * answered `status: active`. An account pending review, refused or waiting for information is not
 * yet a relationship list_accounts must show (interface spec 4.3): nothing to judge, a coverage gap.
 */
import type { TemplateFunction } from '../../harness/core/engine/plugin.js';
import { TemplateGapError } from '../../harness/core/engine/template.js';

export const activeOperatorFunction: TemplateFunction = {
  resolve(step, scope) {
    const record = scope.steps[step] as { payload?: { accounts?: Array<{ status?: unknown; operator?: unknown }> } } | undefined;
    const accounts = record?.payload?.accounts ?? [];
    const active = accounts.find((a) => a?.status === 'active' && typeof a.operator === 'string');
    if (active) return active.operator;
    const status = accounts[0]?.status;
    throw new TemplateGapError(
      `sync_accounts made no account active (status ${JSON.stringify(status)}), so list_accounts need not show it yet`,
      'an account sync_accounts makes active at once',
    );
  },
};
