import { describe, expect, it } from 'vitest';
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SUITE_PLUGINS, builtinSuites } from './index.js';
import { KindRegistry } from '../harness/core/engine/kinds/registry.js';
import { suitePlugin } from '../harness/core/engine/plugin.js';

const SUITES_DIR = fileURLToPath(new URL('./', import.meta.url));
const NOT_SUITES = new Set(['testing', 'shared', 'traceability', 'interop']);

describe('plugin index', () => {
  it('loads every suite with unique check ids', () => {
    const { suites } = builtinSuites();
    expect(suites.map((s) => s.id)).toEqual(SUITE_PLUGINS.map((p) => p.id));
    const ids = suites.flatMap((s) => s.checks.map((c) => c.id));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('every check a check names exists: prerequisites, owners of expectations, rests_on, read owners', () => {
    const { suites } = builtinSuites();
    const ids = new Set(suites.flatMap((s) => s.checks.map((c) => c.id)));
    const named: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if ((k === 'prerequisite' || k === 'owner' || k === 'read_owner') && typeof x === 'string') named.push(x);
          else walk(x);
        }
      }
    };
    for (const s of suites)
      for (const c of s.checks) {
        walk(c.steps);
        named.push(...(c.rests_on ?? []));
      }
    expect(named.length).toBeGreaterThan(100);
    expect([...new Set(named.filter((id) => !ids.has(id)))]).toEqual([]);
  });

  it('lists every suite folder, and every listed suite has its folder', () => {
    const folders = readdirSync(SUITES_DIR).filter((f) => statSync(SUITES_DIR + f).isDirectory() && !NOT_SUITES.has(f));
    expect(SUITE_PLUGINS.map((p) => p.id).sort()).toEqual(folders.sort());
  });

  it('refuses two kinds of the same name', () => {
    const call = { name: 'call', fields: {}, run: async () => ({ verdict: { status: 'ok' as const } }) };
    expect(() => new KindRegistry([suitePlugin(import.meta.url, 'x', { stepKinds: [call] })])).toThrow(
      /step kind "call" of suite x is already registered by the engine/,
    );
  });

  it("keeps a suite's kinds to the registries built with its plugin", () => {
    expect(new KindRegistry().stepKind('webhook_flow')).toBeUndefined();
    expect(builtinSuites().kinds.stepKind('webhook_flow')).toBeDefined();
  });
});
