import { describe, it } from 'vitest';
import { faultsOf, killFaults } from '../testing/model-kill.js';

describe('fuzz.model.media-buy finds the idempotency faults of the mock', () => {
  it('kills every fault in reach, with a short shrunk sequence that replays', { timeout: 120_000 }, async () => {
    await killFaults(faultsOf('idempotency'), 'idempotency faults');
  });
});
