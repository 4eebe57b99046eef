/** Expectations that encode a rule table from the spec as data given in the suite. */
import type { ExpectationKind } from '../types.js';
import { lookupCapability } from '../../conditions.js';
import { at, OK, short } from './util.js';
import { payloadOf } from './util.js';

/**
 * The agent lists the tasks its declaration implies: `tasks` always, and each `when` entry's
 * tasks when that capability is declared.
 */
export const tasksListed: ExpectationKind = {
  name: 'tasks_listed',
  fields: {
    tasks: { type: 'array', items: { type: 'string' } },
    when: {
      type: 'array',
      items: {
        type: 'object',
        properties: { capability: { type: 'string' }, tasks: { type: 'array', items: { type: 'string' } } },
        required: ['capability', 'tasks'],
        additionalProperties: false,
      },
    },
  },
  evaluate(exp, subject, ctx) {
    const listed = subject.list?.names ?? subject.record.names ?? [];
    const wanted = new Set(((exp.tasks as string[] | undefined) ?? []).map((t) => ctx.ids.expand(t)));
    const reasons: string[] = [];
    for (const w of (exp.when as { capability: string; tasks: string[] }[] | undefined) ?? []) {
      if (lookupCapability(ctx.profile.capabilities, w.capability, ctx.ids).found) {
        for (const t of w.tasks) wanted.add(ctx.ids.expand(t));
        reasons.push(ctx.ids.expand(w.capability));
      }
    }
    const missing = [...wanted].filter((t) => !listed.includes(t));
    if (missing.length) {
      return {
        ok: false,
        message: `declared but not listed: ${missing.join(', ')}${reasons.length ? ` (declared via ${reasons.join(', ')})` : ''}`,
        expected: [...wanted],
        actual: listed,
      };
    }
    return OK;
  },
};

/** `valid_actions` matches the state: each state's required and forbidden actions. */
export const validActions: ExpectationKind = {
  name: 'valid_actions',
  fields: {
    path: { type: 'string' },
    state_path: { type: 'string' },
    table: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        properties: {
          include: { type: 'array', items: { type: 'string' } },
          exclude: { type: 'array', items: { type: 'string' } },
          exactly: { type: 'array', items: { type: 'string' } },
        },
        additionalProperties: false,
      },
    },
  },
  required: ['path', 'state_path', 'table'],
  evaluate(exp, subject, ctx) {
    const payload = payloadOf(subject);
    const state = at(payload, exp.state_path as string, ctx);
    const actions = at(payload, exp.path as string, ctx);
    if (!state.found) return { ok: false, message: `${state.pointer} is missing`, pointer: state.pointer };
    if (!actions.found || !Array.isArray(actions.value)) {
      return { ok: false, message: `${actions.pointer} must be an array`, actual: actions.value, pointer: actions.pointer };
    }
    const row = (exp.table as Record<string, { include?: string[]; exclude?: string[]; exactly?: string[] }>)[String(state.value)];
    if (!row) return { ok: false, message: `state ${short(state.value)} is not a documented media-buy state`, actual: state.value, pointer: state.pointer };
    const have = actions.value as unknown[];
    if (row.exactly && (row.exactly.length !== have.length || row.exactly.some((a) => !have.includes(a)))) {
      return {
        ok: false,
        message: `valid_actions for ${String(state.value)} must be ${short(row.exactly)}, is ${short(have)}`,
        expected: row.exactly,
        actual: have,
        pointer: actions.pointer,
      };
    }
    const missing = (row.include ?? []).filter((a) => !have.includes(a));
    const extra = (row.exclude ?? []).filter((a) => have.includes(a));
    if (missing.length || extra.length) {
      return {
        ok: false,
        message: `valid_actions for ${String(state.value)}${missing.length ? ` lacks ${missing.join(', ')}` : ''}${missing.length && extra.length ? ' and' : ''}${extra.length ? ` lists ${extra.join(', ')}` : ''}`,
        expected: { include: row.include, exclude: row.exclude },
        actual: have,
        pointer: actions.pointer,
      };
    }
    return OK;
  },
};
