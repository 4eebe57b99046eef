/**
 * The expected-failures baseline file (`--baseline FILE`, YAML):
 *
 *   version: 1
 *   expected_failures:
 *     - check: errors.unknown-task.invalid-request
 *       transport: a2a            # optional: without it the entry covers every transport
 *       reason: "tracked in JIRA-123"
 *
 * Reading is strict: a file that is not this shape, an entry naming a check id no suite
 * defines, or two entries covering the same check × transport is a `BaselineError` (the CLI
 * turns it into a one-line usage error, exit 2).
 */
import { readFile, stat } from 'node:fs/promises';
import { Document, YAMLParseError, parse } from 'yaml';
import type { TransportKind } from '../core/transport/types.js';

export const BASELINE_VERSION = 1;
/** A baseline is a short list; anything larger than this is not one. */
export const MAX_BASELINE_BYTES = 1024 * 1024;
const TRANSPORTS: readonly TransportKind[] = ['mcp', 'a2a', 'rest'];

export interface BaselineEntry {
  check_id: string;
  /** Absent: every transport. */
  transport?: TransportKind;
  reason: string;
}

export interface Baseline {
  /** The file as given (recorded in the run result). */
  file: string;
  entries: BaselineEntry[];
}

export class BaselineError extends Error {}

export interface ParseBaselineOptions {
  /** Shown in errors and recorded in the result. */
  file: string;
  /** Every check id the suites define; an entry naming another id is an error. */
  knownCheckIds?: ReadonlySet<string>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function oneLineMessage(e: unknown): string {
  return String((e as Error).message ?? e).split('\n')[0];
}

function parseEntry(raw: unknown, where: string, known: ReadonlySet<string> | undefined): BaselineEntry {
  if (!isRecord(raw)) throw new BaselineError(`${where}: expected a mapping with check and reason`);
  const extra = Object.keys(raw).filter((k) => !['check', 'transport', 'reason'].includes(k));
  if (extra.length) throw new BaselineError(`${where}: unknown field ${JSON.stringify(extra[0])} (fields: check, transport, reason)`);
  const { check, transport, reason } = raw;
  if (typeof check !== 'string' || check.trim() === '') throw new BaselineError(`${where}.check: expected a check id`);
  if (known && !known.has(check)) throw new BaselineError(`${where}.check: unknown check id ${JSON.stringify(check)}`);
  if (transport !== undefined && !TRANSPORTS.includes(transport as TransportKind)) {
    throw new BaselineError(`${where}.transport: expected mcp, a2a or rest, got ${JSON.stringify(transport)}`);
  }
  if (typeof reason !== 'string' || reason.trim() === '') throw new BaselineError(`${where}.reason: expected a non-empty reason`);
  return transport === undefined ? { check_id: check, reason } : { check_id: check, transport: transport as TransportKind, reason };
}

/** Parses and validates baseline YAML text. Throws BaselineError with a one-line message. */
export function parseBaseline(text: string, options: ParseBaselineOptions): Baseline {
  const prefix = `baseline ${options.file}`;
  let data: unknown;
  try {
    data = parse(text, { strict: true, uniqueKeys: true, maxAliasCount: 50, prettyErrors: false });
  } catch (e) {
    if (e instanceof YAMLParseError || e instanceof Error) throw new BaselineError(`${prefix}: not valid YAML: ${oneLineMessage(e)}`);
    throw e;
  }
  try {
    if (!isRecord(data)) throw new BaselineError('expected a mapping with version and expected_failures');
    const extra = Object.keys(data).filter((k) => k !== 'version' && k !== 'expected_failures');
    if (extra.length) throw new BaselineError(`unknown field ${JSON.stringify(extra[0])} (fields: version, expected_failures)`);
    if (data.version !== BASELINE_VERSION) throw new BaselineError(`version: expected ${BASELINE_VERSION}, got ${JSON.stringify(data.version ?? null)}`);
    const list = data.expected_failures ?? [];
    if (!Array.isArray(list)) throw new BaselineError('expected_failures: expected a list');
    const entries = list.map((raw, i) => parseEntry(raw, `expected_failures[${i}]`, options.knownCheckIds));
    const seen = new Map<string, number>();
    entries.forEach((e, i) => {
      // An entry without transport covers both, so it overlaps any entry of the same check.
      const keys = e.transport ? [`${e.check_id}\u0000${e.transport}`] : TRANSPORTS.map((t) => `${e.check_id}\u0000${t}`);
      for (const key of keys) {
        const first = seen.get(key);
        if (first !== undefined) {
          throw new BaselineError(
            `expected_failures[${i}]: ${e.check_id}${e.transport ? ` [${e.transport}]` : ''} is already covered by expected_failures[${first}]`,
          );
        }
        seen.set(key, i);
      }
    });
    return { file: options.file, entries };
  } catch (e) {
    if (e instanceof BaselineError) throw new BaselineError(`${prefix}: ${e.message}`);
    throw e;
  }
}

/** Reads and parses a baseline file (at most MAX_BASELINE_BYTES). */
export async function loadBaseline(path: string, knownCheckIds?: ReadonlySet<string>): Promise<Baseline> {
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new BaselineError(`baseline ${path}: not a file`);
    if (info.size > MAX_BASELINE_BYTES) throw new BaselineError(`baseline ${path}: larger than ${MAX_BASELINE_BYTES} bytes`);
    text = await readFile(path, 'utf8');
  } catch (e) {
    if (e instanceof BaselineError) throw e;
    throw new BaselineError(`baseline ${path}: cannot read: ${(e as NodeJS.ErrnoException).code ?? oneLineMessage(e)}`);
  }
  return parseBaseline(text, { file: path, knownCheckIds });
}

/** YAML text of a baseline (with an optional comment on top), readable by `parseBaseline`. */
export function renderBaseline(entries: readonly BaselineEntry[], comment?: string): string {
  const doc = new Document({
    version: BASELINE_VERSION,
    expected_failures: entries.map((e) =>
      e.transport ? { check: e.check_id, transport: e.transport, reason: e.reason } : { check: e.check_id, reason: e.reason },
    ),
  });
  if (comment)
    doc.commentBefore = comment
      .split('\n')
      .map((l) => ` ${l}`)
      .join('\n');
  return doc.toString({ lineWidth: 0 });
}
