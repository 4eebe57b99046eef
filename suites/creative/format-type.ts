/**
 * `{{format_type:<step>}}`: the `type` of the first format the step `<step>` listed
 * (list_creative_formats). Formats need not carry one (its fields beyond `format_id` are not shown,
 * interface spec 2.6): without it the type filter cannot be judged, a coverage gap.
 */
import type { TemplateFunction } from '../../harness/core/engine/plugin.js';
import { TemplateGapError } from '../../harness/core/engine/template.js';

export const formatTypeFunction: TemplateFunction = {
  resolve(step, scope) {
    const record = scope.steps[step] as { payload?: { formats?: Array<{ type?: unknown }> } } | undefined;
    const type = record?.payload?.formats?.[0]?.type;
    if (typeof type === 'string' && type !== '') return type;
    throw new TemplateGapError('the listed formats carry no type member, so the type filter cannot be judged', 'a type on creative formats');
  },
};
