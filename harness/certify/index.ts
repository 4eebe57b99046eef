/**
 * The library's entry point: certify any target and get the canonical RunResult
 * (agent-compliance JSON); choose suites and decide what a set of options certifies.
 */
export { certify, profileAgent, addressPolicyOf, DEFAULT_CONCURRENCY, type CertifyOptions } from './certify.js';
export { pickSuites, UnknownSuiteError, type SuiteSelection } from './pick-suites.js';
export { runTargetOf, suitesFor, shapeOf, type RunTarget, type RunTargetKind, type TargetShape } from './run-target.js';
export { interpretationLookup } from './interpretations.js';
export { builtinSuites } from '../../suites/index.js';
