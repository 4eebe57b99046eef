/**
 * Rules that relate two members of one object, which JSON Schema cannot state without
 * non-standard extensions. Each rule cites the spec text it comes from and reports in the
 * same shape as schema errors (keyword `crossField`).
 */
import type { ProtocolIds } from '../token.js';
import { formatPointer } from '../engine/pointer.js';

export interface CrossFieldError {
  pointer: string;
  message: string;
  keyword: 'crossField';
  schemaPath: string;
}

type Rule = (value: unknown, pointer: string, out: CrossFieldError[]) => void;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function stringList(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : undefined;
}

/** digest 3.5: in_flight_max_seconds is no greater than replay_ttl_seconds. */
const idempotencyInFlightWithinTtl: Rule = (value, pointer, out) => {
  if (!isObject(value) || value.supported !== true) return;
  const ttl = value.replay_ttl_seconds;
  const inFlight = value.in_flight_max_seconds;
  if (typeof ttl === 'number' && typeof inFlight === 'number' && inFlight > ttl) {
    out.push({
      pointer: `${pointer}/in_flight_max_seconds`,
      message: `must be no greater than replay_ttl_seconds (${ttl}), got ${inFlight}`,
      keyword: 'crossField',
      schemaPath: 'capabilities.json#/$defs/idempotency (digest 3.5: in_flight_max_seconds <= replay_ttl_seconds)',
    });
  }
};

/** digest 1.15: required_for and warn_for are subsets of supported_for (default []) and do not overlap;
 *  the same for the protocol_methods_* lists. */
const requestSigningLists: Rule = (value, pointer, out) => {
  if (!isObject(value)) return;
  for (const prefix of ['', 'protocol_methods_']) {
    const supported = stringList(value[`${prefix}supported_for`] ?? []);
    const required = stringList(value[`${prefix}required_for`] ?? []);
    const warn = stringList(value[`${prefix}warn_for`] ?? []);
    if (!supported || !required || !warn) continue; // wrong types are reported by the schema
    const path = 'capabilities.json#/$defs/requestSigning (digest 1.15: list subset and overlap rules)';
    for (const [listName, list] of [
      [`${prefix}required_for`, required],
      [`${prefix}warn_for`, warn],
    ] as const) {
      list.forEach((op, i) => {
        if (!supported.includes(op)) {
          out.push({
            pointer: `${pointer}/${listName}/${i}`,
            message: `${JSON.stringify(op)} must also be listed in ${prefix}supported_for`,
            keyword: 'crossField',
            schemaPath: path,
          });
        }
      });
    }
    warn.forEach((op, i) => {
      if (required.includes(op)) {
        out.push({
          pointer: `${pointer}/${prefix}warn_for/${i}`,
          message: `${JSON.stringify(op)} must not be in both ${prefix}warn_for and ${prefix}required_for`,
          keyword: 'crossField',
          schemaPath: path,
        });
      }
    });
  }
};

/** digest 4.5: when both `status` and `media_buy_status` are sent they must be identical. */
const mediaBuyStatusAgreement: Rule = (value, pointer, out) => {
  if (!isObject(value)) return;
  const { status, media_buy_status: mbs } = value;
  if (typeof status === 'string' && typeof mbs === 'string' && status !== mbs) {
    out.push({
      pointer: `${pointer}/media_buy_status`,
      message: `must equal status (${JSON.stringify(status)}) when both are sent, got ${JSON.stringify(mbs)}`,
      keyword: 'crossField',
      schemaPath: 'media-buy.json (digest 4.5: status and media_buy_status identical)',
    });
  }
};

function at(path: string[], rule: Rule): Rule {
  return (value, pointer, out) => {
    let v: unknown = value;
    for (const key of path) {
      if (!isObject(v)) return;
      v = v[key];
    }
    if (v === undefined) return;
    rule(v, pointer + formatPointer(path), out);
  };
}

function eachOf(key: string, rule: Rule): Rule {
  return (value, pointer, out) => {
    if (!isObject(value) || !Array.isArray(value[key])) return;
    (value[key] as unknown[]).forEach((item, i) => rule(item, pointer + formatPointer([key, i]), out));
  };
}

/** The cross-field rules of each schema, for one token. */
export function crossFieldRules(ids: ProtocolIds): Map<string, Rule[]> {
  const mediaBuy = [mediaBuyStatusAgreement];
  return new Map<string, Rule[]>([
    [
      'capabilities',
      [
        at(['idempotency'], idempotencyInFlightWithinTtl),
        at([ids.token, 'idempotency'], idempotencyInFlightWithinTtl),
        at(['request_signing'], requestSigningLists),
      ],
    ],
    ['media-buy', mediaBuy],
    ['create_media_buy-response', mediaBuy],
    ['update_media_buy-response', mediaBuy],
    ['get_media_buys-response', [eachOf('media_buys', mediaBuyStatusAgreement)]],
  ]);
}

export function applyCrossFieldRules(rules: Rule[] | undefined, value: unknown): CrossFieldError[] {
  const out: CrossFieldError[] = [];
  for (const rule of rules ?? []) rule(value, '', out);
  return out;
}
