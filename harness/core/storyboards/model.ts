/**
 * Storyboards, the protocol community's declarative compliance suites (digest 6.1), as the
 * harness reads them from a bundle (`index.json` with its universal, protocol and specialism
 * storyboards, as published per version and shipped in `@adcp/sdk`'s `compliance/cache/<version>/`).
 * Only the members the harness acts on are typed; each storyboard, phase and step keeps its
 * source object (`raw`) so nothing authored is lost.
 */

/** Where a storyboard comes from in the bundle's index. */
export type StoryboardKind = 'universal' | 'protocol' | 'specialism' | 'scenario' | 'file';

/** `requires_capability` (digest 6.1): a capability path and one test. */
export interface CapabilityRequirement {
  path: string;
  equals?: unknown;
  contains?: unknown;
  not_contains?: unknown;
  present?: boolean;
}

/** A step's validation: an authored `check` kind and its operands. */
export interface StoryboardValidation {
  check: string;
  id?: string;
  path?: string;
  value?: unknown;
  allowed_values?: unknown[];
  description?: string;
  severity?: 'required' | 'advisory';
  expires_after_version?: string;
  raw: Record<string, unknown>;
}

export interface StoryboardStep {
  id: string;
  title?: string;
  /** An agent task, or a webhook pseudo-task (`expect_webhook`, ...). */
  task: string;
  /** The tool the step needs beyond the storyboard's own (skipped as missing_tool without it). */
  requiresTool?: string;
  stateful: boolean;
  expectError: boolean;
  sampleRequest?: unknown;
  contextOutputs: Array<{ name: string; path: string }>;
  validations: StoryboardValidation[];
  raw: Record<string, unknown>;
}

export interface StoryboardPhase {
  id: string;
  title?: string;
  dependsOn: string[];
  optional: boolean;
  requiresCapability?: CapabilityRequirement;
  steps: StoryboardStep[];
  raw: Record<string, unknown>;
}

export interface Storyboard {
  id: string;
  title: string;
  version?: string;
  category?: string;
  track?: string;
  /** The protocol (domain) it belongs to, when it says or its index entry does. */
  protocol?: string;
  /** Lenient any-of: skipped as `missing_tool` only when the agent has none of them. */
  requiredTools: string[];
  /** Strict: each group needs at least one of its tools. */
  requiredAnyOfTools: Array<{ tools: string[]; rationale?: string }>;
  requiresCapability?: CapabilityRequirement;
  requiresAllCapabilities: CapabilityRequirement[];
  /** Scenario storyboards (by id) that run alongside this one. */
  requiresScenarios: string[];
  introducedIn?: string;
  phases: StoryboardPhase[];
  kind: StoryboardKind;
  /** The file, relative to the bundle's root. */
  file: string;
  raw: Record<string, unknown>;
}

/** One entry of the bundle's index: a universal storyboard, a protocol's baseline or a specialism. */
export interface BundleEntry {
  kind: 'universal' | 'protocol' | 'specialism';
  id: string;
  /** A specialism's parent protocol (index.json `protocol`). */
  protocol?: string;
  /** The tools index.json lists for a specialism. */
  requiredTools?: string[];
  /** The storyboards of the entry, by id (scenarios are reached through `requiresScenarios`). */
  storyboards: string[];
}

export interface StoryboardBundle {
  /** The bundle directory (or the single file's directory). */
  root: string;
  /** index.json `adcp_version`; undefined for a single storyboard file. */
  version?: string;
  entries: BundleEntry[];
  /** Every storyboard read, by id (entries' storyboards and scenarios). */
  storyboards: Map<string, Storyboard>;
  /** YAML files of the bundle that are not storyboards (contracts, references), relative paths. */
  otherFiles: string[];
  /** The bundle's test kits (`test-kits/*.yaml`; test-kits.ts), brand kits and runner contracts. */
  testKits: TestKit[];
}

/** A test kit (digest 6.1 `prerequisites.test_kit`): the data a storyboard's `$test_kit.<path>` references read. */
export interface TestKit {
  /** The file, relative to the bundle's root (`test-kits/acme-outdoor.yaml`). */
  file: string;
  /** Its `id`, when it declares one. */
  id?: string;
  data: Record<string, unknown>;
}
