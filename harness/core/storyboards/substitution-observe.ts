/**
 * What `expect_substitution_safe` observes in a preview: the tracker URLs of its HTML (parsed with
 * parse5; only the kit's closed set of URL attributes, never script text or comments; srcset split
 * per candidate; a meta refresh's `url=`), and, for a URL template with `{MACRO}` positions, the
 * value each URL of the template's shape carries at each position. URLs are split as written, not
 * through a WHATWG parser: that parser percent-encodes raw spaces and non-ASCII itself, and a value
 * the agent left raw would then look encoded. Each binding is then attributed the value that is
 * its safe form, or failing that the value that most resembles it, and judged
 * (substitution-encoding.ts).
 */
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import { divergence, firstUnsafe, judgeEncoding, lenientDecode, type SubstitutionErrorCode } from './substitution-encoding.js';

/** Bounds: the HTML parsed, the URLs kept, one URL's length. */
export const OBSERVE_LIMITS = { htmlChars: 1024 * 1024, urls: 2000, urlChars: 16 * 1024 };

export interface TrackerUrl {
  url: string;
  tag: string;
  attr: string;
  line?: number;
}

/** The kit's extraction set: tag → URL attributes (`*`: any element). */
const URL_ATTRS: Record<string, readonly string[]> = {
  a: ['href'],
  img: ['src', 'srcset'],
  iframe: ['src'],
  source: ['src', 'srcset'],
  link: ['href'],
  meta: ['content'],
  '*': ['data-impression-url', 'data-click-url', 'data-tracker-url', 'data-vast-url'],
};

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

/** The tracker URLs of a preview, in document order (at most OBSERVE_LIMITS.urls). */
export function extractTrackerUrls(html: string): TrackerUrl[] {
  const doc = parse(html.slice(0, OBSERVE_LIMITS.htmlChars), { sourceCodeLocationInfo: true });
  const out: TrackerUrl[] = [];
  const stack: Node[] = [doc];
  while (stack.length > 0 && out.length < OBSERVE_LIMITS.urls) {
    const node = stack.pop()!;
    if ('attrs' in node) collect(node, out);
    const kids: Node[] = [...('childNodes' in node ? node.childNodes : []), ...('content' in node && node.content ? node.content.childNodes : [])];
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
  return out.slice(0, OBSERVE_LIMITS.urls);
}

function collect(el: Element, out: TrackerUrl[]): void {
  const names = new Set([...(URL_ATTRS[el.tagName] ?? []), ...URL_ATTRS['*']!]);
  for (const a of el.attrs) {
    if (a.prefix || !names.has(a.name)) continue;
    const line = el.sourceCodeLocation?.attrs?.[a.name]?.startLine;
    const value = a.value.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '');
    const urls = a.name === 'srcset' ? srcsetUrls(value) : el.tagName === 'meta' && a.name === 'content' ? metaUrl(value) : [value];
    for (const url of urls)
      if (url !== '' && url.length <= OBSERVE_LIMITS.urlChars) out.push({ url, tag: el.tagName, attr: a.name, ...(line ? { line } : {}) });
  }
}

/** The URL of each srcset candidate (HTML's srcset grammar: a URL, then descriptors up to a comma). */
export function srcsetUrls(value: string): string[] {
  const urls: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (i < value.length && /[\s,]/.test(value[i]!)) i++;
    let url = '';
    while (i < value.length && !/\s/.test(value[i]!)) url += value[i++];
    if (url.endsWith(',')) url = url.replace(/,+$/, '');
    else {
      let depth = 0;
      while (i < value.length && (depth > 0 || value[i] !== ',')) {
        if (value[i] === '(') depth++;
        else if (value[i] === ')') depth = Math.max(0, depth - 1);
        i++;
      }
    }
    if (url) urls.push(url);
  }
  return urls;
}

/** A meta content that is a URL: a refresh's `url=` part, or an absolute URL itself (og:image). */
function metaUrl(value: string): string[] {
  const refresh = /^\d*\.?\d*\s*[;,]\s*url\s*=\s*(.+)$/i.exec(value);
  if (refresh) return [refresh[1]!.replace(/^(['"])(.*)\1$/, '$2')];
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value) ? [value] : [];
}

/** A URL split as written: `scheme://authority`, path segments, query pairs (key decoded), fragment. */
interface UrlParts {
  origin: string;
  segments: string[];
  pairs: Array<{ key: string; value: string }>;
}

const DEFAULT_PORT: Record<string, string> = { http: '80', https: '443' };

export function splitUrl(raw: string): UrlParts | undefined {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?/.exec(raw);
  if (!m) return undefined;
  const scheme = m[1]!.toLowerCase();
  let authority = m[2]!.toLowerCase();
  if (DEFAULT_PORT[scheme] && authority.endsWith(`:${DEFAULT_PORT[scheme]}`)) authority = authority.slice(0, -DEFAULT_PORT[scheme].length - 1);
  const path = m[3]!;
  const segments = path === '' || path === '/' ? [] : path.slice(1).split('/');
  const pairs =
    m[4] === undefined || m[4] === ''
      ? []
      : m[4].split('&').map((p) => {
          const eq = p.indexOf('=');
          return { key: lenientDecode(eq === -1 ? p : p.slice(0, eq)), value: eq === -1 ? '' : p.slice(eq + 1) };
        });
  return { origin: `${scheme}://${authority}`, segments, pairs };
}

/** Where a macro sits in a template: a path segment, the n-th query value of a key, or the whole value. */
export type MacroPosition = ({ kind: 'path'; index: number } | { kind: 'query'; key: string; nth: number } | { kind: 'whole' }) & {
  /** Template text around the macro inside the segment or value. */
  prefix: string;
  suffix: string;
};

export const positionText = (p: MacroPosition) =>
  p.kind === 'whole' ? 'the whole attribute value' : p.kind === 'path' ? `path segment ${p.index + 1}` : `query ${p.key}${p.nth > 0 ? ` (#${p.nth + 1})` : ''}`;

export interface Template {
  raw: string;
  parts?: UrlParts;
}

/** A template: an absolute URL with `{MACRO}` positions, or a bare macro (the whole attribute value). Undefined when it is neither. */
export function parseTemplate(raw: string): Template | undefined {
  if (/^\{[A-Za-z0-9_]+\}$/.test(raw)) return { raw };
  const parts = splitUrl(raw);
  return parts ? { raw, parts } : undefined;
}

export function macroPositions(t: Template, macro: string): MacroPosition[] {
  if (!t.parts) return t.raw === macro ? [{ kind: 'whole', prefix: '', suffix: '' }] : [];
  const around = (text: string) => {
    const at = text.indexOf(macro);
    return at === -1 ? undefined : { prefix: text.slice(0, at), suffix: text.slice(at + macro.length) };
  };
  const out: MacroPosition[] = [];
  t.parts.segments.forEach((s, index) => {
    const a = around(s);
    if (a) out.push({ kind: 'path', index, ...a });
  });
  const seen = new Map<string, number>();
  for (const p of t.parts.pairs) {
    const nth = seen.get(p.key) ?? 0;
    seen.set(p.key, nth + 1);
    const a = around(p.value);
    if (a) out.push({ kind: 'query', key: p.key, nth, ...a });
  }
  return out;
}

const hasMacro = (s: string) => /\{[A-Za-z0-9_]+\}/.test(s);

/** Does an observed URL have the template's shape: its origin, its literal path segments, its query keys? */
function sameShape(t: UrlParts, o: UrlParts): boolean {
  if (o.origin !== t.origin || o.segments.length !== t.segments.length) return false;
  if (!t.segments.every((s, i) => hasMacro(s) || s === o.segments[i])) return false;
  return t.pairs.every((p) => o.pairs.some((q) => q.key === p.key));
}

/** The value an observed URL carries at a position, or undefined when it has none there. */
function valueAt(o: UrlParts | undefined, raw: string, p: MacroPosition): string | undefined {
  const text = p.kind === 'whole' ? raw : p.kind === 'path' ? o?.segments[p.index] : o?.pairs.filter((q) => q.key === p.key)[p.nth]?.value;
  if (text === undefined || !text.startsWith(p.prefix) || !text.endsWith(p.suffix) || text.length < p.prefix.length + p.suffix.length) return undefined;
  return text.slice(p.prefix.length, text.length - p.suffix.length);
}

/** The value a URL carries at the first position of `macro` in `template` (a fixture vector's expected form). */
export function valueInUrl(template: Template, macro: string, url: string): string | undefined {
  const position = macroPositions(template, macro)[0];
  return position ? valueAt(splitUrl(url), url, position) : undefined;
}

/** A binding with its values resolved (from the fixture, or inline). */
export interface ResolvedBinding {
  macro: string;
  label: string;
  raw: string;
  expected: string;
  /** Inline values (not the public fixture's): shown only as digests. */
  custom: boolean;
}

export interface Candidate {
  url: TrackerUrl;
  position: MacroPosition;
  value: string;
}

export interface BindingFinding {
  binding: ResolvedBinding;
  outcome: 'observed' | 'violated' | 'missing';
  /** The value attributed to it (observed safe, or violating). */
  at?: Candidate;
  code?: SubstitutionErrorCode | 'substitution_binding_missing';
  offset?: number;
  why?: string;
}

export interface Observation {
  findings: BindingFinding[];
  /** Values at a macro position that no binding claims and that are not encoded safely. */
  strays: Array<Candidate & { offset: number }>;
  /** How many URLs had the template's shape. */
  shaped: number;
}

const commonPrefix = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

/**
 * Every binding of one template against the preview's URLs: a binding whose safe form appears at
 * one of its macro positions is observed; otherwise the remaining value most like its raw value
 * (longest common start, decoded) is its violating substitution; with none, it is missing. Any
 * other value at a macro position that is not unreserved-only is a stray violation.
 */
export function observe(urls: readonly TrackerUrl[], template: Template, bindings: readonly ResolvedBinding[]): Observation {
  const shaped = template.parts ? urls.filter((u) => ((p) => p !== undefined && sameShape(template.parts!, p))(splitUrl(u.url))) : [...urls];
  const candidates = new Map<string, Candidate[]>();
  for (const macro of new Set(bindings.map((b) => b.macro))) {
    const positions = macroPositions(template, macro);
    candidates.set(
      macro,
      shaped.flatMap((url) => {
        const parts = splitUrl(url.url);
        return positions.flatMap((position) => {
          const value = valueAt(parts, url.url, position);
          return value === undefined ? [] : [{ url, position, value }];
        });
      }),
    );
  }
  const claimed = new Set<Candidate>();
  const findings: BindingFinding[] = bindings.map((binding) => {
    const list = candidates.get(binding.macro)!;
    const exact = list.find((c) => !claimed.has(c) && divergence(c.value, binding.expected) === -1);
    if (!exact) return { binding, outcome: 'missing' };
    claimed.add(exact);
    // The macro's other positions in the same URL carry the same value, as safely.
    const sibling = list.find((c) => c.url === exact.url && c !== exact && !claimed.has(c) && divergence(c.value, binding.expected) !== -1);
    if (!sibling) return { binding, outcome: 'observed', at: exact };
    claimed.add(sibling);
    const j = judgeEncoding(sibling.value, binding.raw, binding.expected, sibling.position.kind === 'whole');
    return { binding, outcome: 'violated', at: sibling, code: j.code, offset: j.offset, why: j.why };
  });
  for (const f of findings) {
    if (f.outcome !== 'missing') continue;
    const raw = f.binding.raw.normalize('NFC');
    let best: Candidate | undefined;
    let score = 0;
    for (const c of candidates.get(f.binding.macro)!) {
      if (claimed.has(c)) continue;
      const s = Math.max(commonPrefix(lenientDecode(c.value), raw), commonPrefix(c.value, f.binding.expected));
      if (s > score) [best, score] = [c, s];
    }
    if (!best) continue;
    claimed.add(best);
    const j = judgeEncoding(best.value, f.binding.raw, f.binding.expected, best.position.kind === 'whole');
    Object.assign(f, { outcome: 'violated', at: best, code: j.code, offset: j.offset, why: j.why });
  }
  const strays: Observation['strays'] = [];
  for (const list of candidates.values())
    for (const c of list) {
      if (claimed.has(c) || template.parts === undefined) continue;
      const offset = firstUnsafe(c.value);
      if (offset !== -1) strays.push({ ...c, offset });
    }
  return { findings, strays, shaped: shaped.length };
}
