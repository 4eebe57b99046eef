/**
 * Signing benchmark (run by `npm run bench`): in one run, side by side,
 * - full-checklist verifications per second of our verifier (Ed25519 and P-256; fresh nonces,
 *   a replay cache sized so it is not the bottleneck) against raw `node:crypto.verify` of the
 *   same signature bases with the same KeyObjects — the ratio must stay at or above 0.8;
 * - @noble/ed25519 `verify` against node:crypto Ed25519 verify, which picks the primitive the
 *   verifier uses (crypto-verify.ts).
 *
 * The machine is shared and noisy: contenders run in alternating blocks of calls and ops/s is
 * derived from the median block time, so interference hits both sides of a ratio alike.
 */
import { createHash, generateKeyPairSync, verify as nodeVerify, type KeyObject } from 'node:crypto';
import * as noble from '@noble/ed25519';
import { protocolIds } from '../token.js';
import { StaticKeyResolver } from './key-resolver.js';
import { publicKeyOf } from './crypto-verify.js';
import type { Jwk, SignatureAlg } from './keys.js';
import { signingKeyFromJwk } from './keys.js';
import { InMemoryReplayCache } from './replay-cache.js';
import { signRequest, type SignedRequest } from './signer.js';
import { verifyRequestSignature } from './verifier.js';

export interface BenchResult {
  name: string;
  ops_per_sec: number;
  iterations: number;
  /** What `ratio` compares against. */
  baseline?: string;
  /** ops_per_sec / baseline ops_per_sec. */
  ratio?: number;
  /** Minimum acceptable ratio, when there is a target. */
  target_ratio?: number;
}

const ids = protocolIds('proto');
const NOW = 1776520800;
const BODY = '{"idempotency_key":"0b6c9e0e-58a4-4c3c-9b8e-3f6f2b8a1c11","plan_id":"plan_001","packages":[{"package_id":"pkg_1","budget":{"amount":1000,"currency":"USD"}}]}';
const enc = new TextEncoder();

function jwkFor(alg: SignatureAlg, kid: string): Jwk {
  const pair = alg === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const priv = pair.privateKey.export({ format: 'jwk' }) as Record<string, string>;
  return { ...priv, kid, alg: alg === 'ed25519' ? 'EdDSA' : 'ES256', use: 'sig', key_ops: ['verify'], [ids.keyUseMember]: 'request-signing' };
}

/** Median of per-call nanoseconds. */
function median(ns: number[]): number {
  const sorted = [...ns].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export const BLOCK = 25;

/**
 * Interleaved block timing: blocks of BLOCK consecutive calls of each contender alternate, so
 * machine noise hits every contender alike while each runs warm within its block (as a busy
 * verifier does); the median block time discards interrupted blocks. Returns ops/s per contender.
 */
async function interleaved(n: number, contenders: ReadonlyArray<(i: number) => unknown>): Promise<number[]> {
  const blocks = Math.max(1, Math.floor(n / BLOCK));
  const times = contenders.map(() => new Array<number>(blocks));
  for (let b = 0; b < blocks; b++) {
    for (let c = 0; c < contenders.length; c++) {
      const fn = contenders[c]!;
      const t0 = process.hrtime.bigint();
      for (let i = b * BLOCK; i < (b + 1) * BLOCK; i++) await fn(i);
      times[c]![b] = Number(process.hrtime.bigint() - t0);
    }
  }
  return times.map((t) => (BLOCK * 1e9) / median(t));
}

function signMany(jwk: Jwk, n: number): SignedRequest[] {
  const key = signingKeyFromJwk(jwk);
  return Array.from({ length: n }, () =>
    signRequest({ method: 'POST', url: 'https://seller.example.com/proto/create_media_buy', body: BODY }, { profile: 'request', ids, key, created: NOW }),
  );
}

async function verifierVsRaw(alg: SignatureAlg, n: number, rounds: number): Promise<BenchResult[]> {
  const jwk = jwkFor(alg, `bench-${alg}`);
  const requests = signMany(jwk, n * (rounds + 1));
  const keyObj: KeyObject = publicKeyOf(jwk);
  const bases = requests.map((r) => enc.encode(r.signatureBase));
  const sigs = requests.map((r) => Buffer.from(/:(.*):/.exec(r.headers['Signature']!)![1]!, 'base64url'));
  const raw = (i: number) =>
    alg === 'ed25519' ? nodeVerify(null, bases[i]!, keyObj, sigs[i]!) : nodeVerify('sha256', bases[i]!, { key: keyObj, dsaEncoding: 'ieee-p1363' }, sigs[i]!);
  const ctx = {
    profile: 'request' as const,
    ids,
    encoding: 'legacy' as const,
    capability: { supported: true, covers_content_digest: 'required' as const, required_for: ['create_media_buy'] },
    digestPolicy: 'required' as const,
    operation: 'create_media_buy',
    now: () => NOW,
    keys: new StaticKeyResolver([jwk]),
    replayCache: new InMemoryReplayCache({ perKeyidCap: 10 * n * (rounds + 1) }),
  };
  // Warm-up (JIT, key import) on separate requests, then the measured interleaved run.
  const full = (offset: number) => async (i: number) => {
    const r = await verifyRequestSignature(requests[offset + i]!, ctx);
    if (!r.ok) throw new Error(`bench verification failed: ${r.code}`);
  };
  await interleaved(n, [full(0), (i) => raw(i)]);
  const [fullOps, rawOps] = await interleaved(n * rounds, [full(n), (i) => raw(n + i)]);
  const bestFull = fullOps!;
  const bestRaw = rawOps!;
  return [
    { name: `node:crypto raw verify ${alg}`, ops_per_sec: bestRaw, iterations: n * rounds },
    { name: `verifier full checklist ${alg}`, ops_per_sec: bestFull, iterations: n * rounds, baseline: `node:crypto raw verify ${alg}`, ratio: bestFull / bestRaw, target_ratio: 0.8 },
  ];
}

async function nobleVsNode(n: number): Promise<BenchResult[]> {
  if (!noble.hashes.sha512) noble.hashes.sha512 = (m: Uint8Array) => new Uint8Array(createHash('sha512').update(m).digest());
  const jwk = jwkFor('ed25519', 'bench-noble');
  const requests = signMany(jwk, 64);
  const keyObj = publicKeyOf(jwk);
  const pub = new Uint8Array(Buffer.from(jwk.x!, 'base64url'));
  const msgs = requests.map((r) => enc.encode(r.signatureBase));
  const sigs = requests.map((r) => new Uint8Array(Buffer.from(/:(.*):/.exec(r.headers['Signature']!)![1]!, 'base64url')));
  const nodeOne = (i: number) => {
    if (!nodeVerify(null, msgs[i % 64]!, keyObj, sigs[i % 64]!)) throw new Error('node verify failed');
  };
  const nobleOne = (i: number) => {
    if (!noble.verify(sigs[i % 64]!, msgs[i % 64]!, pub)) throw new Error('noble verify failed');
  };
  await interleaved(Math.ceil(n / 4), [nodeOne, nobleOne]);
  const [nodeOps, nobleOps] = (await interleaved(n, [nodeOne, nobleOne])) as [number, number];
  return [
    { name: 'ed25519 verify node:crypto', ops_per_sec: nodeOps, iterations: n },
    { name: 'ed25519 verify @noble/ed25519', ops_per_sec: nobleOps, iterations: n, baseline: 'ed25519 verify node:crypto', ratio: nobleOps / nodeOps },
  ];
}

export async function signingBench(opts: { iterations?: number; rounds?: number } = {}): Promise<BenchResult[]> {
  const n = opts.iterations ?? 1000;
  const rounds = opts.rounds ?? 3;
  return [
    ...(await verifierVsRaw('ed25519', n, rounds)),
    ...(await verifierVsRaw('ecdsa-p256-sha256', Math.ceil(n / 2), rounds)),
    ...(await nobleVsNode(Math.ceil(n / 4))),
  ];
}

/** One line per result, ratios included. */
export function formatBenchResults(results: readonly BenchResult[]): string[] {
  return results.map((r) => {
    const ratio = r.ratio === undefined ? '' : `  ratio=${r.ratio.toFixed(3)} vs ${r.baseline}`;
    const target = r.target_ratio === undefined ? '' : r.ratio! >= r.target_ratio ? `  (target >= ${r.target_ratio}: met)` : `  (target >= ${r.target_ratio}: MISSED)`;
    return `${r.name.padEnd(40)} ${Math.round(r.ops_per_sec).toString().padStart(8)} ops/s${ratio}${target}`;
  });
}
