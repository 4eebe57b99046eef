/** The `{encodedUrl}` path parameter: the URL-encoded agent URL (digest 6.3), looked up as given and as the registry normalizes it. */
import { normalizedUrl } from '../agent-input.js';
import type { AgentRow, RegistryStore } from '../types.js';
import { HttpError } from './respond.js';

export async function agentOr404(store: RegistryStore, encoded: string): Promise<AgentRow> {
  let url: string;
  try {
    url = decodeURIComponent(encoded);
  } catch {
    throw new HttpError(400, 'the agent URL in the path is not URL-encoded correctly');
  }
  const agent = (await store.getAgent(url)) ?? (URL.canParse(url) ? await store.getAgent(normalizedUrl(url)) : undefined);
  if (!agent) throw new HttpError(404, `no agent ${url} is registered`);
  return agent;
}
