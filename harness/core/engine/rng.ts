/**
 * Per-run deterministic values. Everything that must be unique on the agent side (idempotency
 * keys, names, dates) derives from the run seed and the scope that uses it (transport + check id
 * + alias), so a run is reproducible from its recorded seed and independent of scheduling order,
 * while a fresh seed per run gives fresh keys against a long-lived agent.
 */
import { createHash, randomInt } from 'node:crypto';

export function newSeed(): string {
  return String(randomInt(1, 2 ** 47));
}

export function isValidSeed(seed: string): boolean {
  return /^[0-9]{1,16}$/.test(seed);
}

/** Deterministic byte stream for one scope. */
export class ScopedRandom {
  private counter = 0;
  private readonly aliases = new Map<string, string>();

  constructor(
    private readonly seed: string,
    private readonly scope: string,
  ) {}

  bytes(n: number): Buffer {
    const out: Buffer[] = [];
    let have = 0;
    while (have < n) {
      const block = createHash('sha256')
        .update(`${this.seed}\0${this.scope}\0${this.counter++}`)
        .digest();
      out.push(block);
      have += block.length;
    }
    return Buffer.concat(out).subarray(0, n);
  }

  /** A UUID v4 (RFC 9562 version and variant bits set). */
  uuid(): string {
    const b = this.bytes(16);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = b.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  hex(n: number): string {
    return this.bytes(Math.ceil(n / 2))
      .toString('hex')
      .slice(0, n);
  }

  /** The same alias always yields the same value within this scope, whatever the order of use. */
  alias(kind: string, name: string, make: (r: ScopedRandom) => string): string {
    const key = `${kind}:${name}`;
    let value = this.aliases.get(key);
    if (value === undefined) {
      value = make(new ScopedRandom(this.seed, `${this.scope}\0${key}`));
      this.aliases.set(key, value);
    }
    return value;
  }
}
