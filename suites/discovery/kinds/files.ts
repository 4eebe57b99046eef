/**
 * Step kinds of the `discovery` suite, on the rest column (harness/core/registry-face):
 *
 * `discovery_file`: fetches the publisher's adagents.json or the brand's brand.json (`file`),
 * through the run's HTTP client (captured, the address policy applied, no redirect followed, no
 * credential sent), refuses a body above 1 MiB or not a JSON object, and judges it against its
 * schema (`expect_schema`), errors as JSON pointers.
 *
 * `discovery_key_sets`: every `jwks_uri` of brand.json `agents[]` serves a key set of usable public
 * signing keys (harness/core/discovery/jwks-audit.ts); with `pin: true`, the adagents.json
 * `signing_keys[]` pin holds only keys those key sets publish.
 */
import { jwksProblems, PRIVATE_JWK_MEMBERS, pinProblems } from '../../../harness/core/discovery/jwks-audit.js';
import { MAX_DISCOVERY_BYTES } from '../../../harness/core/discovery/fetch.js';
import type { CheckContext, StepKind, StepVerdict } from '../../../harness/core/engine/kinds/types.js';
import { RegistryFaceTransport } from '../../../harness/core/registry-face/transport.js';
import { parseBoundedJson, tooDeepMessage } from '../../../harness/core/transport/bounded-json.js';

type Doc = Record<string, unknown>;
type Fetched = { ok: true; value: Doc } | { ok: false; verdict: StepVerdict };

const FILES = { adagents: 'adagentsUrl', brand: 'brandUrl' } as const;
const FLAGS = { adagents: '--publisher DOMAIN|URL', brand: '--brand DOMAIN|URL' } as const;

function fileUrl(ctx: CheckContext, file: keyof typeof FILES): string | undefined {
  return ctx.transport instanceof RegistryFaceTransport ? ctx.transport.target[FILES[file]] : undefined;
}

/** One discovery document, as JSON object, or the verdict that says why not. */
export async function fetchDocument(ctx: CheckContext, url: string, what: string): Promise<Fetched> {
  const res = await (ctx.transport as RegistryFaceTransport).request({
    method: 'GET',
    path: url,
    auth: 'none',
    purpose: `discovery ${what}`,
    signal: ctx.signal,
  });
  ctx.exchanges.push(res.exchange);
  const fail = (message: string, pointer?: string): Fetched => ({
    ok: false,
    verdict: { status: 'failed', message: `${what} (${url}): ${message}`, ...(pointer !== undefined ? { pointer } : {}) },
  });
  if (!res.ok) return fail(`not fetched (${res.failure.kind}: ${res.failure.message})`);
  if (res.status !== 200) return fail(`HTTP ${res.status}`);
  if (Buffer.byteLength(res.text) > MAX_DISCOVERY_BYTES) return fail(`larger than ${MAX_DISCOVERY_BYTES} bytes`);
  const parsed = parseBoundedJson(res.text);
  if (!parsed.ok)
    return fail(parsed.tooDeep ? tooDeepMessage('the file') : `not JSON (${res.text.length} characters: ${JSON.stringify(res.text.slice(0, 80))})`);
  if (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) return fail('not a JSON object', '');
  return { ok: true, value: parsed.value as Doc };
}

export const discoveryFile: StepKind = {
  name: 'discovery_file',
  fields: {
    file: { enum: ['adagents', 'brand'] },
    expect_schema: { type: 'boolean' },
  },
  required: ['file'],
  async run(step, ctx) {
    const file = step.file as keyof typeof FILES;
    const url = fileUrl(ctx, file);
    if (!url) return { verdict: { status: 'not_applicable', message: `no ${file}.json under test: give one with ${FLAGS[file]}` } };
    const doc = await fetchDocument(ctx, url, `${file}.json`);
    if (!doc.ok) return { verdict: doc.verdict };
    if (step.expect_schema === true) {
      const schema = file === 'adagents' ? 'publisher-declaration' : 'brand-declaration';
      const v = ctx.schemas.validate(schema, doc.value);
      if (!v.valid) {
        const e = v.errors[0]!;
        const more =
          v.errors.length > 1
            ? ` (and ${v.errors.length - 1} more: ${v.errors
                .slice(1, 4)
                .map((x) => x.pointer || '/')
                .join(', ')})`
            : '';
        return {
          verdict: { status: 'failed', message: `${file}.json at ${e.pointer || '/'}: ${e.message}${more}`, pointer: e.pointer, actual: v.errors.slice(0, 10) },
        };
      }
    }
    return { verdict: { status: 'ok' }, record: { payload: doc.value, ok: true } };
  },
};

export const discoveryKeySets: StepKind = {
  name: 'discovery_key_sets',
  fields: { pin: { type: 'boolean' } },
  async run(step, ctx) {
    const brandUrl = fileUrl(ctx, 'brand');
    const adagentsUrl = fileUrl(ctx, 'adagents');
    if (!brandUrl) return { verdict: { status: 'not_applicable', message: `no brand.json under test (its agents' key sets): give one with ${FLAGS.brand}` } };
    if (step.pin === true && !adagentsUrl)
      return { verdict: { status: 'not_applicable', message: `no adagents.json under test (its pin): give one with ${FLAGS.adagents}` } };
    const brand = await fetchDocument(ctx, brandUrl, 'brand.json');
    // The file's own shape is discovery.brand.schema's to judge: here it only blocks.
    if (!brand.ok) return { verdict: { status: 'unmet', message: (brand.verdict as { message: string }).message, blocked_by: 'discovery.brand.schema' } };
    const agents = Array.isArray(brand.value.agents) ? (brand.value.agents as unknown[]) : [];
    const uris = agents.map((a) => (a && typeof a === 'object' ? (a as Doc).jwks_uri : undefined)).filter((u): u is string => typeof u === 'string');
    if (uris.length === 0)
      return { verdict: { status: 'gap', message: 'brand.json names no sales agent with a jwks_uri', gap: 'brand.json agents[].jwks_uri' } };
    const published: Doc[] = [];
    for (const uri of [...new Set(uris)].slice(0, 16)) {
      const set = await fetchDocument(ctx, uri, 'key set');
      if (!set.ok) return { verdict: set.verdict };
      // A published private member is a secret all the same: the report must not spread it further.
      for (const k of Array.isArray(set.value.keys) ? (set.value.keys as unknown[]) : [])
        if (k && typeof k === 'object') for (const m of PRIVATE_JWK_MEMBERS) ctx.run.redactor?.add((k as Doc)[m]);
      if (step.pin !== true) {
        const problems = jwksProblems(set.value);
        if (problems.length)
          return {
            verdict: {
              status: 'failed',
              message: `key set ${uri} at ${problems[0]!.pointer || '/'}: ${problems[0]!.message}`,
              pointer: problems[0]!.pointer,
              actual: problems.slice(0, 10),
            },
          };
      }
      if (Array.isArray(set.value.keys)) published.push(...(set.value.keys as unknown[]).filter((k): k is Doc => k !== null && typeof k === 'object'));
    }
    if (step.pin !== true) return { verdict: { status: 'ok' } };
    const adagents = await fetchDocument(ctx, adagentsUrl!, 'adagents.json');
    if (!adagents.ok)
      return { verdict: { status: 'unmet', message: (adagents.verdict as { message: string }).message, blocked_by: 'discovery.adagents.schema' } };
    if (adagents.value.signing_keys === undefined)
      return { verdict: { status: 'not_applicable', message: 'adagents.json pins no signing key (signing_keys[] is optional)' } };
    const problems = pinProblems(adagents.value.signing_keys, published);
    if (problems.length)
      return {
        verdict: {
          status: 'failed',
          message: `adagents.json at ${problems[0]!.pointer}: ${problems[0]!.message}`,
          pointer: problems[0]!.pointer,
          actual: problems.slice(0, 10),
        },
      };
    return { verdict: { status: 'ok' } };
  },
};
