/**
 * Validation kinds judged on how the reply came rather than on its payload (digest 6.1 authored
 * kinds; the bundle's storyboard-schema.yaml): `on_401_require_header` (a 401 carries the header
 * the validation names, RFC 6750 section 3's WWW-Authenticate) and `a2a_submitted_artifact` (the
 * A2A envelope of a `submitted` arm: a completed Task with ids whose last data part keeps
 * `status: submitted`; not applicable on another transport).
 */
import { fail, na, pass, type Judge } from './judge.js';
import { urlIdentity } from './url-identity.js';

export const on401RequireHeader: Judge = (v, o) => {
  const name = typeof v.value === 'string' && v.value.trim() !== '' ? v.value.trim().toLowerCase() : undefined;
  if (!name) return na("the storyboard's on_401_require_header validation names no header");
  if (o.httpStatus === undefined) return na('no HTTP status was observed for this step');
  if (o.httpStatus !== 401) return { outcome: 'passed', message: `HTTP ${o.httpStatus}: the header is required of a 401 only` };
  const headers = o.headers ?? {};
  const found = Object.keys(headers).find((h) => h.toLowerCase() === name);
  return found !== undefined && headers[found].trim() !== ''
    ? pass
    : fail(`the 401 carries no ${name} header`, `a ${name} header`, Object.keys(headers).sort(), '');
};

/** A2A 0.3's wire value and A2A 1.0's enum for a completed task, as our transport reports them. */
const COMPLETED = new Set(['completed', 'TASK_STATE_COMPLETED']);

export const a2aSubmittedArtifact: Judge = (_v, o) => {
  const r = o.reply;
  if (r?.transport !== 'a2a') return na(`graded on A2A only; this step came over ${r?.transport ?? 'no transport'}`);
  const problems: string[] = [];
  if (!r.taskId) problems.push('the Task has no id');
  if (!r.contextId) problems.push('the Task has no contextId');
  if (!r.status || !COMPLETED.has(r.status)) problems.push(`the Task state is ${r.status ?? '(absent)'}, not completed`);
  const status = o.payload && typeof o.payload === 'object' ? (o.payload as { status?: unknown }).status : undefined;
  if (r.payloadSource !== 'artifact') problems.push(`the payload came from ${r.payloadSource ?? 'nowhere'}, not an artifact data part`);
  else if (status !== 'submitted') problems.push(`the artifact's data part has status ${JSON.stringify(status) ?? '(absent)'}, not "submitted"`);
  if (problems.length === 0) return pass;
  return fail(
    `not the A2A envelope of a submitted arm: ${problems.join('; ')}`,
    { task: 'id and contextId non-empty, state completed', artifact: 'last data part with status "submitted"' },
    { taskId: r.taskId ?? null, contextId: r.contextId ?? null, state: r.status ?? null, payload_source: r.payloadSource ?? null, status: status ?? null },
    '',
  );
};

export const resourceEqualsAgentUrl: Judge = (_v, o, env) => {
  if (!o.ok) return na('no metadata document was served to judge');
  if (!env.agentUrl) return na('the run has no agent URL to compare with');
  const resource = o.payload && typeof o.payload === 'object' ? (o.payload as { resource?: unknown }).resource : undefined;
  if (typeof resource !== 'string') return fail('the metadata has no resource URL', env.agentUrl, resource ?? null, '/resource');
  const [have, want] = [urlIdentity(resource), urlIdentity(env.agentUrl)];
  return have !== undefined && have === want
    ? pass
    : fail(`the metadata's resource ${resource} is not the URL called, ${env.agentUrl}`, want, have ?? resource, '/resource');
};

/** A2A 0.3.0 section 7.1: a follow-up message sent with an earlier Task's contextId gets a Task in that context. */
export const a2aContextContinuity: Judge = (_v, o) => {
  const r = o.reply;
  if (r?.transport !== 'a2a') return na(`graded on A2A only; this step came over ${r?.transport ?? 'no transport'}`);
  if (!r.sentContextId) return na('no earlier A2A step of the storyboard gave a contextId to continue (the first A2A step)');
  return r.contextId === r.sentContextId
    ? pass
    : fail(`the message was sent with contextId ${r.sentContextId}; the Task answered with ${r.contextId ?? 'none'}`, r.sentContextId, r.contextId ?? null, '');
};
