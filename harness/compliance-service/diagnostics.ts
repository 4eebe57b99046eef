/**
 * A run's step diagnostics (digest 6.3 `ComplianceStepDiagnostic`, owner only): for each check
 * that fails the run (or broke), the exchange it judged (the last one with an answer: request,
 * status, headers, body, already redacted by the transport), the extraction, the error and the
 * failed validations. Checks compiled from storyboard steps are named by their storyboard, phase,
 * step and task; our own checks by their suite and check id. Bodies are parsed when they are JSON.
 */
import { isFailing, type CheckResult, type RunResult } from '../core/engine/result.js';
import type { WireExchange } from '../core/transport/types.js';

export const DEFAULT_DIAGNOSTICS = 500;
export const MAX_DIAGNOSTICS = 1_000;

const json = (body: string | undefined): unknown => {
  if (body === undefined || body === '') return null;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
};

/** The exchange the check judged: the last one with a response, else the last. */
function judged(c: CheckResult): WireExchange | undefined {
  const xs = c.evidence?.exchanges ?? [];
  return [...xs].reverse().find((x) => x.response) ?? xs.at(-1);
}

/** The protocol error the agent answered with, if its body carries one (`errors[]` or `error`). */
function protoError(body: unknown): unknown {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const inner = (b.result ?? b) as Record<string, unknown>;
  return (inner && typeof inner === 'object' && (inner.errors ?? inner.error)) ?? b.error ?? null;
}

function failedValidations(c: CheckResult): unknown[] {
  const authored = c.storyboard_step?.validations?.filter((v) => v.outcome === 'failed');
  if (authored?.length) return authored;
  const e = c.evidence;
  return [
    {
      check: c.check_id,
      message: c.message,
      ...(e?.expected !== undefined ? { expected: e.expected } : {}),
      ...(e?.actual !== undefined ? { actual: e.actual } : {}),
      ...(e?.pointer ? { json_pointer: e.pointer } : {}),
    },
  ];
}

export function diagnosticsOf(run: RunResult, runId: number, limit: number): Record<string, unknown>[] {
  const strict = run.selection?.strict ?? false;
  const failing = run.checks.filter((c) => isFailing(c, strict) || c.outcome === 'error');
  return failing.slice(0, limit).map((c, i) => {
    const x = judged(c);
    const step = c.storyboard_step;
    const response = json(x?.response?.body);
    return {
      id: `${runId}:${i + 1}`,
      run_id: String(runId),
      agent_url: run.agent_url,
      storyboard_id: step?.storyboard_id ?? c.suite_id,
      phase_id: step?.phase_id ?? null,
      step_id: step?.step_id ?? c.check_id,
      task: step?.task ?? (x ? x.purpose : null),
      transport: c.transport,
      step_passed: false,
      outcome: c.outcome,
      duration_ms: Math.round(c.duration_ms),
      request_url: x?.request.url ?? null,
      request_jsonb: json(x?.request.body),
      response_status: x?.response?.status ?? null,
      response_headers_jsonb: x?.response?.headers ?? null,
      response_jsonb: response,
      extraction_path: c.evidence?.pointer ?? null,
      extraction_note: c.evidence?.notes?.join('; ') ?? null,
      error_text: x?.error ?? c.message,
      proto_error_jsonb: protoError(response),
      failed_validations_jsonb: failedValidations(c),
      served_by_agent_url: x?.request.url ?? run.agent_url,
      captured_at: x?.started_at ?? run.finished_at,
    };
  });
}
