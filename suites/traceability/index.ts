/**
 * The traceability maps (not a suite): one YAML file per spec document mapping each normative
 * rule to the checks that test it, or to the reason it is untested. See docs/suites.md "Traceability".
 */
import { loadTraceMap } from '../../harness/core/traceability/load.js';
import { SPEC_DOCS, type SpecDoc, type TraceMap } from '../../harness/core/traceability/types.js';

export const TRACE_MAP_FILES: Record<SpecDoc, URL> = {
  'interface-spec': new URL('./interface-spec.yaml', import.meta.url),
  digest: new URL('./digest.yaml', import.meta.url),
};

let maps: TraceMap[] | undefined;

/** Both maps, in SPEC_DOCS order, read once per process; throws TraceMapError on a bad file. */
export function traceMaps(): TraceMap[] {
  maps ??= SPEC_DOCS.map((doc) => {
    const map = loadTraceMap(TRACE_MAP_FILES[doc]);
    if (map.doc !== doc) throw new Error(`${map.source}: declares doc ${map.doc}, expected ${doc}`);
    return map;
  });
  return maps;
}
