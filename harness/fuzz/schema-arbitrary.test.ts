/** The schema generator judged by the project's validator: valid requests pass the request schema, near-valid ones fail it. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSchemaValidator } from '../core/schemas/validator.js';
import { validArbitrary } from './schema-arbitrary.js';
import { nearValidArbitrary } from './defects.js';
import { FUZZ_TASKS, requestSchema } from './requests.js';

const v = createSchemaValidator({ token: 'proto' });
const account = fc.constant({ brand: { domain: 'example.com' }, operator: 'pc-0123456789ab.example' });
const key = fc.uuid({ version: 4 });

describe.each(FUZZ_TASKS)('%s request arbitraries', (task) => {
  const schema = requestSchema(task);
  const bindings = { '/account': account, '/idempotency_key': key };

  it('valid requests are valid against the request schema', () => {
    fc.assert(
      fc.property(validArbitrary(schema, bindings), (r) => {
        const verdict = v.validate(`${task}-request`, r);
        expect(verdict.errors).toEqual([]);
      }),
      { seed: 11, numRuns: 300 },
    );
  });

  it('near-valid requests break the request schema exactly where their defect says', () => {
    fc.assert(
      fc.property(nearValidArbitrary(schema, bindings), ({ request, defect }) => {
        const verdict = v.validate(`${task}-request`, request);
        expect(verdict.valid, JSON.stringify(defect)).toBe(false);
        // The schema objects at the defect's place (or, for a member left out, at its parent).
        expect(
          verdict.errors.some((e) => defect.pointer === e.pointer || defect.pointer.startsWith(`${e.pointer}/`)),
          JSON.stringify({ defect, errors: verdict.errors }),
        ).toBe(true);
      }),
      { seed: 12, numRuns: 300 },
    );
  });
});

describe('defects', () => {
  it('never make an unknown extra member a defect (the spec allows them)', () => {
    fc.assert(
      fc.property(nearValidArbitrary(requestSchema('get_products'), { '/account': account }), ({ defect }) => {
        expect(defect.kind).not.toBe('extra-member');
        expect([
          'missing-required',
          'wrong-type',
          'unknown-enum',
          'out-of-range',
          'malformed-date',
          'malformed-host',
          'bad-pattern',
          'bad-length',
          'too-few-items',
        ]).toContain(defect.kind);
      }),
      { seed: 13, numRuns: 200 },
    );
  });
});
