/** Template expansion: typed whole substitutions, and OMIT dropping a member or an array item. */
import { describe, expect, it } from 'vitest';
import { protocolIds } from '../token.js';
import { expandTemplates, OMIT, TemplateError, type TemplateScope } from './template.js';
import { ScopedRandom } from './rng.js';

function scope(functions: Record<string, (arg: string) => unknown> = {}): TemplateScope {
  return {
    ids: protocolIds('proto'),
    random: new ScopedRandom('seed', 'check'),
    runStartedAt: new Date('2026-01-01T00:00:00Z'),
    steps: { s: { payload: { n: 3, list: ['a'] } } },
    capabilities: { media_buy: { g: ['daily'] } },
    functions: (name) => (functions[name] ? (arg) => functions[name]!(arg) : undefined),
  };
}

describe('expandTemplates', () => {
  it('keeps the type of a whole substitution and interpolates text', () => {
    expect(expandTemplates({ a: '{{steps.s.payload.n}}', b: 'n={{steps.s.payload.n}}', c: '{{profile.media_buy.g.0}}' }, scope())).toEqual({
      a: 3,
      b: 'n=3',
      c: 'daily',
    });
  });

  it('drops an object member or array item whose value is OMIT, and keeps the rest', () => {
    const fns = { maybe: (arg: string) => (arg === 'no' ? OMIT : { id: arg }) };
    expect(expandTemplates({ keep: '{{maybe:yes}}', drop: '{{maybe:no}}', list: ['{{maybe:no}}', '{{maybe:x}}'] }, scope(fns))).toEqual({
      keep: { id: 'yes' },
      list: [{ id: 'x' }],
    });
  });

  it('refuses an unresolved reference instead of sending an empty value', () => {
    expect(() => expandTemplates({ a: '{{steps.s.payload.missing}}' }, scope())).toThrow(TemplateError);
  });
});
