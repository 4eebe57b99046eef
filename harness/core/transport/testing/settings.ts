/** Test support: transport settings for loopback test servers (short timeouts, 1 MiB cap, a fresh recorder). */
import { createRecorder } from '../capture.js';
import type { TransportSettings } from '../types.js';

export function testSettings(extra: Partial<TransportSettings> = {}): TransportSettings {
  return {
    agentUrl: 'http://127.0.0.1/',
    token: 'proto',
    connectTimeoutMs: 2_000,
    totalTimeoutMs: 10_000,
    maxResponseBytes: 1024 * 1024,
    capture: createRecorder(),
    ...extra,
  };
}
