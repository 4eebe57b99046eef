/** What every route module of the registry API is given: the store, the clock and the service's hooks. */
import type { AgentRow, RegistryStore } from '../types.js';

export interface ServiceContext {
  store: RegistryStore;
  now: () => number;
  /** Called after a registration (the scheduler looks for due agents at once). */
  onRegistered?: (agent: AgentRow) => void;
}
