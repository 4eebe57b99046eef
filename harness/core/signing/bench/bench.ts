/**
 * Signing benchmark (a section of `npm run bench`): in one run, side by side,
 * - full-checklist verifications per second of our verifier (Ed25519 and P-256) against raw
 *   `node:crypto.verify` of the same signature bases with imported KeyObjects — the ratio must
 *   stay at or above 0.8;
 * - @noble/ed25519 `verify` against node:crypto Ed25519 verify, which picks the primitive the
 *   verifier uses (crypto-verify.ts).
 *
 * What the verifier gets is what a server hands it: lower-case header fields as node:http
 * delivers them (Host, Content-Length, ... included), the raw body bytes of a JSON-RPC
 * `tools/call`, a fresh nonce per request, the product's replay cache (default per-keyid cap)
 * and a revocation list. Every step runs: parse, window, key policy, revocation, cap,
 * authority, signature, Content-Digest, replay insert, duplicate-key scan. No verification
 * result is reused across requests; what the verifier keeps between requests is what it keeps
 * in production: per-key state (imported key, Step 8 verdict), the canonical form of the last
 * URL / Host seen, the text and bytes of the last signature-base prefix.
 *
 * The library is loaded the way the product runs it (TypeScript through tsx, whose transform
 * keeps function names: the hot path creates no per-call closures, so that costs nothing).
 * Timing alternates blocks of the two contenders (bench-timing.ts), in process CPU time, and
 * reports the median per-pair ratio with its 10th-90th percentile spread, the plain
 * total-time ratio and the wall-clock ratio.
 */
import { createPublicKey, generateKeyPairSync, verify as nodeVerify, createHash, type KeyObject } from 'node:crypto';
import * as noble from '@noble/ed25519';
import { protocolIds } from '../../token.js';
import { pairedTiming, type PairedTiming } from './bench-timing.js';
import { StaticKeyResolver } from '../keys/key-resolver.js';
import type { Jwk, SignatureAlg } from '../keys/keys.js';
import { signingKeyFromJwk } from '../keys/keys.js';
import { InMemoryReplayCache, REQUEST_PER_KEYID_CAP } from '../verify/replay-cache.js';
import { InMemoryRevocation, listRefreshedAgo } from '../verify/revocation.js';
import { signRequest } from '../sign/signer.js';
import type { ReceivedRequest, VerifyContext } from '../verify/verifier-types.js';
import { verifyRequestSignature } from '../verify/verifier.js';

export interface BenchResult {
  name: string;
  ops_per_sec: number;
  iterations: number;
  /** What `ratio` compares against. */
  baseline?: string;
  /** ops_per_sec / baseline ops_per_sec (for paired timings: the median per-pair ratio). */
  ratio?: number;
  /** 10th-90th percentile of the per-pair ratios, when measured in pairs. */
  spread?: [number, number];
  /** Ratio of total CPU times over every block (no outlier rejection), when measured in pairs. */
  total_ratio?: number;
  /** Ratio of total wall-clock times, when measured in pairs. */
  wall_ratio?: number;
  /** Clock of a paired measurement: process CPU time, or wall-clock time where CPU time is coarse. */
  clock?: 'cpu' | 'wall';
  /** Minimum acceptable ratio, when there is a target. */
  target_ratio?: number;
  /** Further figures of the same measurement, printed after the line (e.g. added latency). */
  note?: string;
}

export interface SigningBenchOptions {
  /** Verifications per contender and round for Ed25519 (P-256 runs 1.5x as many, noble 1/16). */
  iterations?: number;
  /** Rounds; measured verifications = iterations x rounds. */
  rounds?: number;
  /** Calls per timed block. */
  block?: number;
}

/**
 * Calls per timed block: long enough for each contender to run warm (as a busy verifier does)
 * and for CPU-time readings to be precise, short enough that most block pairs fall between
 * the interruptions of a shared machine, which the median then leaves out.
 */
export const BLOCK = 16;
export const TARGET_RATIO = 0.8;

const ids = protocolIds('proto');
const NOW = 1776520800;
const HOST = 'seller.example.com';
const URL = `https://${HOST}/mcp`;
const ARGUMENTS = {
  idempotency_key: '0b6c9e0e-58a4-4c3c-9b8e-3f6f2b8a1c11',
  buyer_ref: 'campaign-2026-q2-sports',
  brand: { domain: 'example.com' },
  start_time: '2026-05-01T00:00:00Z',
  end_time: '2026-06-30T23:59:59Z',
  packages: [
    {
      buyer_ref: 'pkg-video',
      product_id: 'prod_ctv_premium',
      pricing_option_id: 'cpm_fixed',
      budget: 25000,
      targeting_overlay: { geo_country_any_of: ['US', 'CA'] },
    },
    { buyer_ref: 'pkg-display', product_id: 'prod_display_run', pricing_option_id: 'cpm_auction', budget: 5000, bid_price: 4.5 },
  ],
};
const BODY = JSON.stringify({ jsonrpc: '2.0', id: 42, method: 'tools/call', params: { name: 'create_media_buy', arguments: ARGUMENTS } });

function jwkFor(alg: SignatureAlg, kid: string): Jwk {
  const pair = alg === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const priv = pair.privateKey.export({ format: 'jwk' }) as Record<string, string>;
  return { ...priv, kid, alg: alg === 'ed25519' ? 'EdDSA' : 'ES256', use: 'sig', key_ops: ['verify'], [ids.keyUseMember]: 'request-signing' };
}

interface Signed {
  request: ReceivedRequest;
  base: Buffer;
  signature: Buffer;
}

/**
 * A header value as node:http hands it over: a new flat string made from the received bytes
 * for every request (the signer's values are concatenations; constants would be shared).
 */
function asReceived(value: string): string {
  return Buffer.from(value, 'latin1').toString('latin1');
}

/** Requests as a node:http server receives them, with the signed base and signature bytes. */
function signMany(jwk: Jwk, n: number): Signed[] {
  const key = signingKeyFromJwk(jwk);
  const out: Signed[] = [];
  for (let i = 0; i < n; i++) {
    const s = signRequest({ method: 'POST', url: URL, body: BODY }, { profile: 'request', ids, key, created: NOW });
    const headers: Record<string, string> = {
      host: asReceived(HOST),
      'user-agent': 'proto-comply-bench/1.0',
      accept: 'application/json, text/event-stream',
      'content-length': String(s.body.length),
      connection: 'keep-alive',
    };
    for (const [name, value] of Object.entries(s.headers)) headers[name.toLowerCase()] = asReceived(value);
    out.push({
      // The absolute URL a server assembles per request (scheme, Host, path).
      request: { method: 'POST', url: asReceived(URL), headers, body: Buffer.from(s.body) },
      base: Buffer.from(s.signatureBase, 'utf8'),
      signature: Buffer.from(/^sig1=:(.*):$/.exec(s.headers.Signature!)![1]!, 'base64url'),
    });
  }
  return out;
}

function importPublic(jwk: Jwk): KeyObject {
  const bare: Record<string, string> = { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x! };
  if (jwk.y) bare.y = jwk.y;
  return createPublicKey({ key: bare, format: 'jwk' });
}

function pairedResults(what: string, t: PairedTiming, target?: number): BenchResult[] {
  const baseline = `node:crypto raw verify ${what}`;
  return [{ name: baseline, ops_per_sec: t.opsB, iterations: t.iterations }, pairedRow(`verifier full checklist ${what}`, baseline, t, target)];
}

async function verifierVsRaw(alg: SignatureAlg, n: number, block: number): Promise<BenchResult[]> {
  const jwk = jwkFor(alg, `bench-${alg}`);
  const warm = Math.max(block * 4, Math.ceil(n / 8));
  const signed = signMany(jwk, warm + n);
  const rawKey = importPublic(jwk);
  const p1363 = { key: rawKey, dsaEncoding: 'ieee-p1363' as const };
  const raw =
    alg === 'ed25519'
      ? (i: number) => nodeVerify(null, signed[i]!.base, rawKey, signed[i]!.signature)
      : (i: number) => nodeVerify('sha256', signed[i]!.base, p1363, signed[i]!.signature);
  const checkRaw = (ok: unknown) => {
    if (ok !== true) throw new Error('raw verification failed');
  };
  const ctx: VerifyContext = {
    profile: 'request',
    ids,
    encoding: 'legacy',
    capability: { supported: true, covers_content_digest: 'required', required_for: ['create_media_buy'] },
    digestPolicy: 'required',
    operation: 'create_media_buy',
    jsonRpcMethod: 'tools/call',
    now: () => NOW,
    keys: new StaticKeyResolver([jwk], 'https://buyer.example.com/mcp'),
    replayCache: new InMemoryReplayCache({ perKeyidCap: REQUEST_PER_KEYID_CAP }),
    revocation: new InMemoryRevocation(listRefreshedAgo(30, NOW, ['revoked-1', 'revoked-2'])),
  };
  const full = (i: number) => verifyRequestSignature(signed[i]!.request, ctx);
  const checkFull = (value: unknown) => {
    const r = value as Awaited<ReturnType<typeof verifyRequestSignature>>;
    if (!r.ok || r.signer === null) throw new Error(`bench verification failed: ${r.ok ? 'unsigned' : r.code}`);
  };
  const checks = { checkA: checkFull, checkB: checkRaw };
  // Warm-up (JIT, key import, memoized target) on separate requests, then the measured run.
  await pairedTiming(full, raw, { iterations: warm, block, ...checks });
  return pairedResults(alg, await pairedTiming(full, raw, { iterations: n, block, offset: warm, ...checks }), TARGET_RATIO);
}

function checkTrue(what: string): (ok: unknown) => void {
  return (ok) => {
    if (ok !== true) throw new Error(`${what} verification failed`);
  };
}

async function nobleVsNode(n: number, block: number): Promise<BenchResult[]> {
  if (!noble.hashes.sha512) noble.hashes.sha512 = (m: Uint8Array) => new Uint8Array(createHash('sha512').update(m).digest());
  const jwk = jwkFor('ed25519', 'bench-noble');
  const signed = signMany(jwk, 64);
  const keyObj = importPublic(jwk);
  const pub = new Uint8Array(Buffer.from(jwk.x!, 'base64url'));
  const msgs = signed.map((s) => new Uint8Array(s.base));
  const sigs = signed.map((s) => new Uint8Array(s.signature));
  const nodeOne = (i: number) => nodeVerify(null, msgs[i % 64]!, keyObj, sigs[i % 64]!);
  const nobleOne = (i: number) => noble.verify(sigs[i % 64]!, msgs[i % 64]!, pub);
  const checks = { checkA: checkTrue('noble'), checkB: checkTrue('node:crypto') };
  await pairedTiming(nobleOne, nodeOne, { iterations: block * 2, block, ...checks });
  const t = await pairedTiming(nobleOne, nodeOne, { iterations: n, block, ...checks });
  return [
    { name: 'ed25519 verify node:crypto', ops_per_sec: t.opsB, iterations: t.iterations },
    {
      name: 'ed25519 verify @noble/ed25519',
      ops_per_sec: t.opsA,
      iterations: t.iterations,
      baseline: 'ed25519 verify node:crypto',
      ratio: t.ratio,
      spread: t.spread,
      total_ratio: t.totalRatio,
      wall_ratio: t.wallRatio,
      clock: t.clock,
    },
  ];
}

export async function signingBench(opts: SigningBenchOptions = {}): Promise<BenchResult[]> {
  const n = (opts.iterations ?? 2000) * (opts.rounds ?? 4);
  const block = opts.block ?? BLOCK;
  return [
    ...(await verifierVsRaw('ed25519', n, block)),
    ...(await verifierVsRaw('ecdsa-p256-sha256', Math.ceil(n * 1.5), block)),
    ...(await nobleVsNode(Math.max(16, Math.ceil(n / 16)), Math.max(2, Math.ceil(block / 5)))),
  ];
}

/** One line per result, ratios (with spread and target) included. */
export function formatBenchResults(results: readonly BenchResult[]): string[] {
  return results.map((r) => {
    const ops = r.ops_per_sec >= 100 ? Math.round(r.ops_per_sec).toString() : r.ops_per_sec.toPrecision(3);
    let line = `${r.name.padEnd(42)} ${ops.padStart(8)} ops/s`;
    if (r.ratio !== undefined) {
      line += `  ratio=${r.ratio.toFixed(3)}`;
      const details: string[] = [];
      if (r.clock) details.push(`${r.clock} time`);
      if (r.spread) details.push(`p10-p90 ${r.spread[0].toFixed(3)}-${r.spread[1].toFixed(3)}`);
      if (r.total_ratio !== undefined) details.push(`total ${r.total_ratio.toFixed(3)}`);
      if (r.wall_ratio !== undefined && r.clock !== 'wall') details.push(`wall ${r.wall_ratio.toFixed(3)}`);
      if (details.length > 0) line += ` (${details.join(', ')})`;
      line += ` vs ${r.baseline}`;
    }
    if (r.target_ratio !== undefined) line += r.ratio! >= r.target_ratio ? `  [target >= ${r.target_ratio}: met]` : `  [target >= ${r.target_ratio}: MISSED]`;
    if (r.note) line += `\n${' '.repeat(4)}${r.note}`;
    return line;
  });
}

/** A contender's row against `baseline`, its ratio the paired one, with its target. */
export function pairedRow(name: string, baseline: string, t: PairedTiming, target?: number): BenchResult {
  return {
    name,
    ops_per_sec: t.opsA,
    iterations: t.iterations,
    baseline,
    ratio: t.ratio,
    spread: t.spread,
    total_ratio: t.totalRatio,
    wall_ratio: t.wallRatio,
    clock: t.clock,
    target_ratio: target,
  };
}
