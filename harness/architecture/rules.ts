/**
 * The dependency rules of the repository, checked by dependency-cruiser (dependencies.test.ts over
 * the whole tree; rules.test.ts shows each one failing on a violating import). The layers, from
 * the bottom: the core (harness/core/); the suites and the report formats, on the core; the run
 * builder (harness/certify/), on the core and the suite list; the applications (command line,
 * fuzzer, proxy, compliance service, vitest entry, baseline), on all of those. docs/ARCHITECTURE.md
 * draws them.
 */
import type { IForbiddenRuleType } from 'dependency-cruiser';

/** Test code: test files, test helpers, benchmarks, these rules. */
export const TEST_CODE = '(\\.test\\.ts$|/testing/|^bench/|/bench/|^fixtures/signing/generate\\.ts$|^harness/architecture/)';

/** The applications built on the core and the run builder. */
const APPS = '^harness/(cli|fuzz|proxy|compliance-service|vitest|baseline)/';

export const RULES: IForbiddenRuleType[] = [
  { name: 'no-cycle', comment: 'no import cycle anywhere', severity: 'error', from: {}, to: { circular: true } },
  {
    name: 'core-is-the-base',
    comment: 'the core (harness/core/) imports nothing above it: no suite, report, mock, run builder or application',
    severity: 'error',
    from: { path: '^harness/core/', pathNot: TEST_CODE },
    to: { path: '^(suites|reports|mocks|bin)/|^harness/(?!core/)' },
  },
  {
    name: 'engine-is-generic',
    comment: 'the engine knows only generic kinds (transport, network, protocol facts); suites register theirs through their plugin',
    severity: 'error',
    from: { path: '^harness/core/engine/', pathNot: TEST_CODE },
    to: { path: '^harness/core/(?!engine/|net/|protocol/|transport/|token\\.ts$|version\\.ts$)' },
  },
  {
    name: 'suites-and-reports-on-the-core',
    comment: 'suites and report formats import only the core (and their own folder)',
    severity: 'error',
    from: { path: '^(suites|reports)/', pathNot: TEST_CODE },
    to: { path: '^(mocks|bin)/|^harness/(?!core/)' },
  },
  {
    name: 'suite-internals-stay-home',
    comment: "a suite's files are imported only from its own folder (suites/index.ts lists the plugins)",
    severity: 'error',
    from: { path: '^suites/([^/]+)/', pathNot: TEST_CODE },
    to: { path: '^suites/[^/]+/', pathNot: '^suites/$1/' },
  },
  {
    name: 'no-reaching-into-suites',
    comment: "nothing outside suites/ imports a suite's internals; the entry points use suites/index.ts",
    severity: 'error',
    from: { pathNot: `^suites/|${TEST_CODE}` },
    to: { path: '^suites/[^/]+/' },
  },
  {
    name: 'suite-list-for-entry-points',
    comment: 'only the entry points (the run builder, the command line, the vitest entry, the proxy session and report) import suites/index.ts',
    severity: 'error',
    from: { pathNot: `^suites/|^harness/(certify|cli|vitest)/|^harness/proxy/(session|report)\\.ts$|${TEST_CODE}` },
    to: { path: '^suites/index\\.ts$' },
  },
  {
    name: 'run-builder-below-applications',
    comment: 'the run builder (harness/certify/) imports only the core and the suite list',
    severity: 'error',
    from: { path: '^harness/certify/', pathNot: TEST_CODE },
    to: { path: `${APPS}|^(reports|mocks|bin)/` },
  },
  {
    name: 'command-line-on-top',
    comment: 'only bin/ and the vitest entry (its flag parser) import the command line; a library never does',
    severity: 'error',
    from: { pathNot: `^bin/|^harness/(cli|vitest)/|${TEST_CODE}` },
    to: { path: '^harness/cli/' },
  },
  {
    name: 'mocks-use-the-core',
    comment: 'the mocks depend on the core only, never on the run builder, the applications, the suites or the reports',
    severity: 'error',
    from: { path: '^mocks/', pathNot: TEST_CODE },
    to: { path: '^(suites|reports|bin)/|^harness/(?!core/)' },
  },
  {
    name: 'library-does-not-start-mocks',
    comment: 'only the command line (harness/cli) and tests start the mocks',
    severity: 'error',
    from: { path: '^(harness|reports|suites|fixtures)/', pathNot: `${TEST_CODE}|^harness/cli/` },
    to: { path: '^mocks/' },
  },
  {
    name: 'test-helpers-stay-in-tests',
    comment: 'testing/ folders serve tests only',
    severity: 'error',
    from: { pathNot: TEST_CODE },
    to: { path: '/testing/' },
  },
  {
    name: 'no-dev-dependency-at-runtime',
    comment: 'runtime code imports only dependencies (type-only imports aside; vitest and Allure are optional peers of the vitest entry)',
    severity: 'error',
    from: { pathNot: TEST_CODE },
    to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['npm-peer', 'type-only'] },
  },
  {
    name: 'fast-path-is-fenced',
    comment:
      "the verifier's fast path (harness/core/signing/fast/) is an accelerator that only verify/verifier.ts selects; the reference code never imports it",
    severity: 'error',
    from: { pathNot: `${TEST_CODE}|^harness/core/signing/fast/|^harness/core/signing/verify/verifier\\.ts$` },
    to: { path: '^harness/core/signing/fast/' },
  },
  { name: 'resolvable', comment: 'every import resolves', severity: 'error', from: {}, to: { couldNotResolve: true } },
];
