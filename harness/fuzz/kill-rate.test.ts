/**
 * The fuzzer's kill rate: every fault profile of the mock seller that breaks a rule of the errors,
 * schemas, idempotency or state-machine suites must be found by the fuzzer alone (no check of the
 * suites runs), shrunk and replayable. Faults of the idempotency and state-machine suites are the
 * model's (fuzz.model.media-buy); the others are the request properties' (every one of them on
 * every fuzzed task, without saying which should find it). `npm test` prints the rate.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type FaultDef, listFaults } from '../../mocks/seller/faults.js';
import '../../mocks/seller/index.js';
import { MODEL_OUT_OF_REACH, modelFinds } from './testing/model-kill.js';
import { requestPropertiesFind } from './testing/request-kill.js';
import { recordTasksFind } from './testing/record-kill.js';
import { MUTATING_RECORD_TASKS } from './requests.js';

const SUITES = ['errors', 'schemas', 'idempotency', 'state-machine'];
const suiteOf = (checkId: string) => checkId.slice(0, checkId.indexOf('.'));
/**
 * The fault profiles of the four suites the fuzzer cannot reach, each with the reason: every other
 * one of the registry's faults of these suites (derived from the registry by the suite of its
 * targets, never a hand-chosen list) must be found. A reason names why no property or model command
 * can judge the rule; the suite check named in the fault's targets proves it (suites/faults.test.ts).
 */
const MODEL_HAS_NO_COMMAND =
  'the media-buy model has no command for it (it creates, pauses, resumes, cancels, updates budgets and forces states, one buy-level field at a time)';
const HASH_BEYOND_MODEL = 'the model replays the JSON it sent byte for byte and varies one buy-level field for a conflict; it never sends';
const OUT_OF_REACH: Readonly<Record<string, string>> = {
  'unknown-buy-wrong-code':
    'a SHOULD code of the not-found precedence: the model judges the MUST refusal of an unknown buy, not which code (state-machine.not-found.media-buy-code does)',
  'unknown-package-wrong-code':
    'a SHOULD code of the not-found precedence, on a package: the model names no packages (state-machine.not-found.package-code does)',
  'create-paused-ignored': `${MODEL_HAS_NO_COMMAND}: a create with paused: true`,
  'uncancel-accepted': `${MODEL_HAS_NO_COMMAND}: an update with canceled: false`,
  'cancel-applies-other-fields': `${MODEL_HAS_NO_COMMAND}: a cancel carrying package changes`,
  'package-pause-applies-to-all': `${MODEL_HAS_NO_COMMAND}: a package-level pause`,
  'package-cancel-cancels-buy': `${MODEL_HAS_NO_COMMAND}: a package-level cancel`,
  'action-not-allowed-without-details': `${MODEL_HAS_NO_COMMAND}: the model judges the refusal code, not ACTION_NOT_ALLOWED's error.details`,
  'confirmed-at-moves-on-update': `${MODEL_HAS_NO_COMMAND}: the model does not track confirmed_at`,
  'force-same-state-refused': `${MODEL_HAS_NO_COMMAND}: forcing the state a buy is already in`,
  'revision-incremented-on-sync-assignment': `${MODEL_HAS_NO_COMMAND}: a sync_creatives assignment to a package (a rule of the 3.2 line only)`,
  'revision-incremented-on-validation-only': `${MODEL_HAS_NO_COMMAND}: a sync_creatives dry run with an assignment (a validation-only call)`,
  'creatives-assigned-stays-pending': `${MODEL_HAS_NO_COMMAND}: a create naming a format without creatives (pending_creatives), then a sync_creatives assignment`,
  'terminal-keeps-creative-assignments': `${MODEL_HAS_NO_COMMAND}: a sync_creatives assignment, and the packages' creative_approvals on a read`,
  'cancel-rejected-not-cancellable': `${MODEL_HAS_NO_COMMAND}: a cancel of a forced rejection, judged on which of two refusal codes`,
  'hash-not-canonical': `${HASH_BEYOND_MODEL} the same members reordered`,
  'governance-context-in-hash': `${HASH_BEYOND_MODEL} governance_context`,
  'push-credentials-in-hash': `${HASH_BEYOND_MODEL} a push registration (a rotated credential)`,
  'push-url-not-hashed': `${HASH_BEYOND_MODEL} a push registration (a changed URL)`,
  'null-members-dropped-in-hash': `${HASH_BEYOND_MODEL} an added null member`,
  'ext-not-hashed': `${HASH_BEYOND_MODEL} ext`,
  'read-key-ignored': "a keyed read: the model reads without keys, and the request properties do not judge a read's key (digest 3.1 lets reads omit it)",
  'low-entropy-key-accepted':
    'a SHOULD (digest 3.1): every key the fuzzer sends is fresh and well-formed, and a low-entropy one is not a defect the spec requires refused',
  'in-flight-conflict-answered-in-flight': 'two different payloads under one key at once: the model sends concurrent identical creates only',
  'async-replay-current-state': 'the asynchronous arm: the model drives synchronous sellers (a create answered submitted is not a model state)',
  'key-refusal-transient': 'the recovery class a refusal declares: no property judges error.recovery (idempotency.key.refusal-recovery does)',
  'expired-recovery-terminal': 'the recovery class of IDEMPOTENCY_EXPIRED: the model judges the code only (idempotency.expiry.recovery does)',
};
const FAULTS = listFaults().filter((f) => f.targets.some((t) => SUITES.includes(suiteOf(t))) && !(f.name in OUT_OF_REACH));
const IN_SUITES = listFaults().filter((f) => f.targets.some((t) => SUITES.includes(suiteOf(t))));
const BY_MODEL = FAULTS.filter((f) => f.targets.some((t) => ['idempotency', 'state-machine'].includes(suiteOf(t))) && !(f.name in MODEL_OUT_OF_REACH));
const BY_REQUESTS = FAULTS.filter((f) => !BY_MODEL.includes(f));

/**
 * The other mutating tasks of spec 4.3 (sync_*, build_creative, activate_signal, log_event,
 * provide_performance_feedback): every fault of another suite that lets a malformed request of one
 * of them through (a target `*.invalid-refused` or `*missing-key` outside the four suites) must be
 * found by fuzz.errors.near-valid-refused on that task; all of them at once, on one mock (each acts
 * on its own task), or named out of reach with the reason.
 */
const RECORD_TASK_OF: Readonly<Record<string, string>> = {
  audiences: 'sync_audiences',
  catalogs: 'sync_catalogs',
  events: 'log_event',
  feedback: 'provide_performance_feedback',
  accounts: 'sync_accounts',
  signals: 'activate_signal',
  'build-missing-key': 'build_creative',
  'sync-missing-key': 'sync_creatives',
};
const NEEDS_STATE = "the fuzzer's setup finds no";
const RECORD_OUT_OF_REACH: Readonly<Record<string, string>> = {
  'activate-signal-not-idempotent': `${NEEDS_STATE} segment the seller offers (get_signals), so every activate_signal it sends names an unknown segment and is refused for that before the key matters`,
  'build-creative-not-idempotent': `${NEEDS_STATE} format the seller lists (list_creative_formats), so every build_creative it sends targets an unknown format and is refused for that`,
  'sync-creatives-not-idempotent': `${NEEDS_STATE} format the seller lists, so every creative it syncs has an unknown format and is refused for that`,
  'event-time-unchecked': `${NEEDS_STATE} event source the seller knows, so every log_event it sends is refused for its event_source_id before the event time matters`,
  'catalog-url-unchecked': 'spec 2.6 names a catalog url without a syntax the request schema could state, so the fuzzer sends no URL defects',
};
const RECORD_FAULTS = listFaults().filter(
  (f) => f.targets.some((t) => /\.invalid-refused$|missing-key$/.test(t)) && !f.targets.some((t) => SUITES.includes(suiteOf(t))),
);
function recordTask(f: FaultDef): string | undefined {
  for (const t of f.targets) {
    const [suite, area, rest] = t.split('.');
    const task = RECORD_TASK_OF[suite === 'records' ? area : suite === 'creative' ? rest : suite];
    if (task) return task;
  }
  return undefined;
}

const found = new Map<string, string>();
const t0 = Date.now();
afterAll(() => {
  if (found.size === 0) return; // a filtered run (-t) hunted none of them
  const missed = FAULTS.filter((f) => !found.has(f.name)).map((f) => f.name);
  const byModel = BY_MODEL.filter((f) => found.has(f.name)).length;
  console.log(
    `fuzz kill rate: ${found.size}/${FAULTS.length} faults found (errors, schemas, idempotency and state-machine fault profiles; ` +
      `request properties ${found.size - byModel}/${BY_REQUESTS.length}, model ${byModel}/${BY_MODEL.length}; ${Math.round((Date.now() - t0) / 1000)} s)` +
      `; out of reach: ${IN_SUITES.length - FAULTS.length} (named with their reasons in kill-rate.test.ts)` +
      (missed.length ? `; missed: ${missed.join(', ')}` : ''),
  );
});

describe('the fuzzer alone finds every fault of the errors, schemas, idempotency and state-machine suites', () => {
  it('has faults to find in each suite', () => {
    for (const suite of SUITES)
      expect(
        FAULTS.some((f) => f.targets.some((t) => suiteOf(t) === suite)),
        suite,
      ).toBe(true);
    expect(BY_REQUESTS.length + BY_MODEL.length).toBe(FAULTS.length);
  });

  it('names only faults of the four suites as out of reach, each with a reason; every other one is hunted', () => {
    const names = new Set(IN_SUITES.map((f) => f.name));
    for (const [name, reason] of [...Object.entries(OUT_OF_REACH), ...Object.entries(MODEL_OUT_OF_REACH)]) {
      expect(names.has(name), `${name} is not a fault of ${SUITES.join(', ')}`).toBe(true);
      expect(reason.length, name).toBeGreaterThan(20);
    }
    expect(FAULTS.length + Object.keys(OUT_OF_REACH).length).toBe(IN_SUITES.length);
  });

  it('reaches the expired key with the model and the undeclared idempotency with the request properties', () => {
    expect(BY_MODEL.map((f) => f.name)).toContain('expired-key-reexecuted');
    expect(BY_REQUESTS.map((f) => f.name)).toContain('idempotency-not-declared');
  });

  it('the near-valid requests of the other mutating tasks find their faults, all on one mock seller', { timeout: 120_000 }, async () => {
    const hunted = RECORD_FAULTS.filter((f) => !(f.name in RECORD_OUT_OF_REACH));
    expect(Object.keys(RECORD_OUT_OF_REACH).every((n) => RECORD_FAULTS.some((f) => f.name === n))).toBe(true);
    const expected = new Map(hunted.map((f) => [f.name, recordTask(f)]));
    for (const [name, task] of expected) expect(MUTATING_RECORD_TASKS as readonly (string | undefined)[], `${name}: no fuzzed task`).toContain(task);
    const failed = await recordTasksFind(hunted.map((f) => f.name));
    expect(failed.sort()).toEqual([...new Set(expected.values())].map((t) => `fuzz.errors.near-valid-refused.${t}`).sort());
    console.log(
      `fuzz kill rate, other mutating tasks: ${hunted.length}/${RECORD_FAULTS.length} faults found on one mock (${[...expected].map(([n, t]) => `${n} by ${t}`).join(', ')}); out of reach: ${Object.keys(RECORD_OUT_OF_REACH).join(', ')}`,
    );
  });

  it.each(BY_REQUESTS.map((f) => [f.name, f] as [string, FaultDef]))('the request properties find %s', { timeout: 60_000 }, async (name, fault) => {
    const failed = await requestPropertiesFind(fault);
    expect(failed.length, `${name}: no request property failed`).toBeGreaterThan(0);
    found.set(name, failed.map((c) => c.check_id).join(', '));
    console.log(`${name}: ${found.get(name)} :: ${failed[0].message.slice(0, 240)}`);
  });

  it.each(BY_MODEL.map((f) => [f.name, f] as [string, FaultDef]))('the model finds %s', { timeout: 60_000 }, async (name, fault) => {
    const finding = await modelFinds(fault);
    expect(finding, `${name}: the model found nothing`).toBeDefined();
    found.set(name, finding as string);
    console.log(`${name}: ${finding}`);
  });
});
