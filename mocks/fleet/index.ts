/**
 * A fleet of mock sellers in one process: N independent sellers (own state, own fault profile),
 * each on its own loopback address (127.0.0.2, 127.0.0.3, ...: every 127/8 address is loopback on
 * Linux), so a registry sees N hosts and its per-host fairness applies as it would to N companies.
 * A fleet of 200 costs one process, not 200. Each seller keeps its state in an in-memory database:
 * a fleet is never restarted, so the file writes of a durable one would only cost CPU the prober needs.
 */
import { startMockSeller, type RunningMockSeller } from '../seller/index.js';

export interface MockFleetOptions {
  count: number;
  /** The fault profile of seller i (default none). */
  faultsFor?: (i: number) => string[];
  /** Bearer every seller requires (default none). */
  authToken?: string;
  /** Sellers per address (default 1: one host each). */
  perHost?: number;
  /** First address's last octet pair offset (default 2: 127.0.0.2). */
  firstHost?: number;
}

export interface FleetAgent {
  url: string;
  host: string;
  faults: string[];
}

export interface RunningMockFleet {
  agents: FleetAgent[];
  close(): Promise<void>;
}

/** The i-th loopback address from 127.0.0.2 on (127.0.1.0 after 127.0.0.255, and so on). */
export function loopbackAddress(i: number): string {
  const n = i + 2;
  return `127.0.${Math.floor(n / 256)}.${n % 256}`;
}

export async function startMockFleet(o: MockFleetOptions): Promise<RunningMockFleet> {
  if (!Number.isInteger(o.count) || o.count < 1 || o.count > 5_000) throw new Error(`a fleet has 1 to 5000 sellers, not ${o.count}`);
  const perHost = o.perHost ?? 1;
  const sellers: RunningMockSeller[] = [];
  const agents: FleetAgent[] = [];
  try {
    for (let i = 0; i < o.count; i++) {
      const host = loopbackAddress((o.firstHost ?? 0) + Math.floor(i / perHost));
      const faults = o.faultsFor?.(i) ?? [];
      // The prober's webhook receiver is on loopback too: the sellers may post there.
      const seller = await startMockSeller({
        host,
        faults,
        allowPrivateWebhooks: true,
        dbPath: ':memory:',
        ...(o.authToken ? { authToken: o.authToken } : {}),
      });
      sellers.push(seller);
      agents.push({ url: seller.baseUrl, host, faults });
    }
  } catch (e) {
    await Promise.allSettled(sellers.map((s) => s.close()));
    throw e;
  }
  return {
    agents,
    close: async () => {
      await Promise.allSettled(sellers.map((s) => s.close()));
    },
  };
}
