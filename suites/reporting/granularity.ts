/**
 * `{{undeclared_granularity:x}}`: a delivery time granularity the agent does not declare in
 * `media_buy.reporting_capabilities.windowed_pull_granularities` (interface spec 4.3), taken from
 * the usual reporting periods. A seller that declares every one of them leaves nothing to refuse:
 * a coverage gap.
 */
import type { TemplateFunction } from '../../harness/core/engine/plugin.js';
import { TemplateGapError } from '../../harness/core/engine/template.js';

export const GRANULARITIES = ['hourly', 'daily', 'weekly', 'monthly'] as const;

export function declaredGranularities(capabilities: unknown): unknown[] {
  const media = (capabilities as { media_buy?: { reporting_capabilities?: { windowed_pull_granularities?: unknown } } } | undefined)?.media_buy;
  const list = media?.reporting_capabilities?.windowed_pull_granularities;
  return Array.isArray(list) ? list : [];
}

export const undeclaredGranularityFunction: TemplateFunction = {
  resolve(_arg, scope) {
    const declared = declaredGranularities(scope.capabilities);
    const other = GRANULARITIES.find((g) => !declared.includes(g));
    if (other === undefined)
      throw new TemplateGapError(`the agent declares every granularity the harness knows (${GRANULARITIES.join(', ')})`, 'an undeclared time granularity');
    return other;
  },
};
