/**
 * What a run certifies, decided once from the options: an agent (with, when named, a buyer's
 * receiver and a registry face), a buyer's receiver on its own, a registry on its own, or only a
 * publisher's and brand's discovery files. The same decision picks the suites that can run on it,
 * so the command line and `certify` cannot disagree.
 */
import type { SuiteCatalog } from '../core/engine/loader.js';
import type { SuiteDef } from '../core/engine/model.js';
import type { ReceiverTarget } from '../core/engine/resources.js';
import { type RegistryTarget, registryTargetOf } from '../core/registry-face/target.js';
import { TransportConfigError } from '../core/transport/index.js';
import { receiverOnlySuites, receiverTargetOf, type ReceiverOptions } from '../core/webhooks/receiver-probe/run.js';
import { loadedSuites, pickSuites, type SuiteSelection, UnknownSuiteError } from './pick-suites.js';

export type RunTarget =
  | { kind: 'agent'; agentUrl: string; receiver?: ReceiverTarget; registry?: RegistryTarget }
  | { kind: 'receiver'; receiver: ReceiverTarget }
  /** A registry's API (and, when named, the discovery files beside it). */
  | { kind: 'registry'; registry: RegistryTarget }
  /** Only a publisher's adagents.json and a brand's brand.json (no registry URL). */
  | { kind: 'files'; registry: RegistryTarget };

export type RunTargetKind = RunTarget['kind'];

export interface RunTargetOptions {
  agentUrl?: string;
  receiverUrl?: string;
  receiver?: ReceiverOptions;
  registry?: RegistryTarget;
}

/**
 * The target the options name; undefined when they name nothing (the command line then certifies
 * its built-in mocks). Throws TransportConfigError for a receiver and a registry without an agent.
 */
export function runTargetOf(o: RunTargetOptions): RunTarget | undefined {
  const receiver = receiverTargetOf(o.receiverUrl, o.receiver);
  const registry = registryTargetOf(o.registry);
  if (o.agentUrl !== undefined) return { kind: 'agent', agentUrl: o.agentUrl, ...(receiver ? { receiver } : {}), ...(registry ? { registry } : {}) };
  if (receiver) {
    if (registry) throw new TransportConfigError('a receiver-only run certifies no registry: give --agent too, or run the registry on its own');
    return { kind: 'receiver', receiver };
  }
  if (registry) return { kind: registry.url ? 'registry' : 'files', registry };
  return undefined;
}

/** What decides the suites: the target's kind and whether a registry face is there to certify. */
export interface TargetShape {
  kind: RunTargetKind;
  registry: boolean;
}

export const shapeOf = (t: RunTarget): TargetShape => ({ kind: t.kind, registry: t.kind !== 'receiver' && t.registry !== undefined });

/**
 * The suites a run on this target executes. Throws UnknownSuiteError (a suite that does not
 * exist, or none left) and TransportConfigError (a suite the target cannot serve: an agent suite
 * on a receiver alone, a registry suite without a registry).
 */
export function suitesFor(shape: TargetShape, selection: SuiteSelection, catalog?: SuiteCatalog): SuiteDef[] {
  const given = loadedSuites(selection);
  const ids = given ? undefined : (selection as string[] | undefined);
  switch (shape.kind) {
    case 'receiver':
      return given ?? pickSuites(receiverOnlySuites(ids), catalog);
    case 'registry':
    case 'files': {
      const suites = (given ?? pickSuites(ids, catalog)).filter((s) => s.face === 'registry');
      if (suites.length === 0)
        throw new UnknownSuiteError(
          'a registry-face run (--registry, --publisher or --brand without --agent) runs only the registry, registry-compliance and discovery suites; none is selected',
        );
      return suites;
    }
    case 'agent': {
      const picked = given ?? pickSuites(ids, catalog);
      if (shape.registry) return picked;
      const named = picked.filter((s) => s.face === 'registry' && ids?.includes(s.id));
      if (named.length > 0)
        throw new TransportConfigError(
          `the ${named[0]!.id} suite certifies the registry face: give --registry URL, --publisher DOMAIN|URL or --brand DOMAIN|URL`,
        );
      // The registry face is certified only when the run names one (it has its own rest column).
      return picked.filter((s) => s.face !== 'registry');
    }
  }
}

/** Where the run's report says it ran: the agent, the receiver, the registry or the first discovery file. */
export function targetUrl(t: RunTarget): string {
  switch (t.kind) {
    case 'agent':
      return t.agentUrl;
    case 'receiver':
      return t.receiver.url;
    default:
      return t.registry.url ?? t.registry.adagentsUrl ?? t.registry.brandUrl ?? '';
  }
}

/** The flag that names the target, for the command that reproduces a run. */
export function targetFlag(t: RunTarget): string {
  return t.kind === 'agent'
    ? '--agent'
    : t.kind === 'receiver'
      ? '--receiver'
      : t.kind === 'registry'
        ? '--registry'
        : t.registry.adagentsUrl
          ? '--publisher'
          : '--brand';
}
