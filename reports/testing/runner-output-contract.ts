/**
 * A runner output document judged against the contract itself: `universal/runner-output-contract.yaml`
 * of a storyboard bundle (read by the caller, never copied here). Gives every way the document
 * departs from it: a block's `required_fields` (and `required_on_failure` of a failed validation),
 * a value outside the contract's enumerations (skip reasons, extraction paths, transports), a
 * secret-bearing key not redacted, a response header outside the allowlist, request headers
 * recorded at all, a failed step without a failed validation, a skipped step marked passed.
 * Used on the fixture bundle's run (reports/runner-output.contract.test.ts) and on the real
 * bundle's runs against the SDK's example agents (suites/interop/storyboards.test.ts).
 */
import { parse } from 'yaml';
import type { RunnerOutputDocument } from '../runner-output.js';

type Block = { required_fields?: string[]; required_on_failure?: string[] } & Record<string, unknown>;

export interface RunnerOutputContract {
  text: string;
  id: string;
  version: string;
  blocks: Record<string, Block>;
}

export function readContract(text: string): RunnerOutputContract {
  const blocks = parse(text) as Record<string, Block>;
  return { text, id: String(blocks.id), version: String(blocks.version), blocks };
}

/**
 * The values a block's field lists in its comment (`- path  # "structured_content" | "text_fallback" |`
 * and the comment lines after it): the contract's enumerations are written that way.
 */
export function commentEnum(text: string, block: string, field: string): string[] {
  const lines = text.split('\n');
  const start = lines.indexOf(`${block}:`);
  const at = lines.findIndex((l, i) => i > start && new RegExp(`^\\s+- ${field}\\s+#`).test(l));
  if (start < 0 || at < 0) throw new Error(`the contract has no ${block}.${field}`);
  const comment = [lines[at].split('#').slice(1).join('#')];
  for (let i = at + 1; /^\s+#/.test(lines[i]); i++) comment.push(lines[i].replace(/^\s+#/, ''));
  return comment
    .join(' ')
    .split('|')
    .map((t) => t.trim().replace(/^"|"$/g, ''))
    .filter((t) => /^[a-z0-9_]+$/.test(t));
}

/** Every key and value of the document, depth first. */
export const walk = (value: unknown, visit: (key: string, v: unknown) => void): void => {
  if (Array.isArray(value)) for (const v of value) walk(v, visit);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      visit(k, v);
      walk(v, visit);
    }
};

/** The contract's secret-key pattern (`security.payload_redaction.pattern`). */
export function redactionPattern(c: RunnerOutputContract): RegExp {
  const security = c.blocks.security as { payload_redaction: { pattern: string } };
  return new RegExp(security.payload_redaction.pattern.replace(/\s+/g, ''), 'i');
}

/** Every departure of the document from the contract; empty when it follows it. */
export function contractProblems(doc: RunnerOutputDocument, c: RunnerOutputContract): string[] {
  const problems: string[] = [];
  const required = (block: string) => c.blocks[block]?.required_fields ?? [];
  const lacks = (where: string, obj: object, fields: readonly string[]) => {
    for (const f of fields) if (!(f in obj)) problems.push(`${where}: no ${f}`);
  };
  const oneOf = (where: string, value: unknown, allowed: readonly string[]) => {
    if (!allowed.includes(String(value))) problems.push(`${where}: ${String(value)} is none of ${allowed.join(', ')}`);
  };
  const paths = commentEnum(c.text, 'extraction', 'path');
  const reasons = commentEnum(c.text, 'skip_result', 'reason');
  const transports = commentEnum(c.text, 'request', 'transport');
  const allowlist = new Set((c.blocks.security as { response_headers: { allowlist: string[] } }).response_headers.allowlist.map((h) => h.toLowerCase()));
  lacks('run_summary', doc.run_summary, required('run_summary'));
  for (const s of doc.step_results) {
    const at = `${s.transport} ${s.check_id}`;
    lacks(at, s, required('step_result'));
    lacks(`${at} extraction`, s.extraction, required('extraction'));
    oneOf(`${at} extraction.path`, s.extraction.path, paths);
    if (s.skip) {
      lacks(`${at} skip`, s.skip, required('skip_result'));
      oneOf(`${at} skip.reason`, s.skip.reason, reasons);
      if (!s.skip.detail) problems.push(`${at} skip: an empty detail`);
      if (s.passed) problems.push(`${at}: skipped and passed`);
    }
    if (!s.passed && !s.skip && !s.validations.some((v) => !v.passed)) problems.push(`${at}: failed with no failed validation`);
    for (const v of s.validations) {
      lacks(`${at} ${v.check}`, v, required('validation_result'));
      if (v.passed) continue;
      lacks(`${at} ${v.check}`, v, c.blocks.validation_result?.required_on_failure ?? []);
      if (v.check !== 'transport' && v.json_pointer === null) problems.push(`${at} ${v.check}: a null json_pointer on a failure with a payload`);
    }
    if (s.request) {
      lacks(`${at} request`, s.request, required('request'));
      oneOf(`${at} request.transport`, s.request.transport, transports);
      if ('headers' in s.request) problems.push(`${at} request: headers recorded`);
    }
    if (s.response) {
      lacks(`${at} response`, s.response, required('response'));
      oneOf(`${at} response.transport`, s.response.transport, transports);
      for (const h of Object.keys(s.response.headers ?? {}))
        if (!allowlist.has(h.toLowerCase())) problems.push(`${at} response: header ${h} is not allowlisted`);
    }
  }
  const secret = redactionPattern(c);
  walk(doc, (key, v) => {
    if (secret.test(key) && v !== '[redacted]') problems.push(`${key}: not redacted`);
  });
  return problems;
}
