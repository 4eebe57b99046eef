/**
 * Headings of a Markdown document and their GitHub-style anchors (the `#fragment` GitHub gives a
 * heading): the rendered text lower-cased, every character that is not a letter, mark, digit,
 * connector (`_`), hyphen or space dropped, spaces turned into hyphens; a repeated anchor gets
 * `-1`, `-2`, … in document order.
 */

export interface Heading {
  /** 1 for `#`, 2 for `##`, … */
  depth: number;
  /** The heading as rendered (inline code and emphasis markers removed). */
  text: string;
  /** The leading section number (`4.4`, `2.4a`, `1`), when the heading has one. */
  section?: string;
  anchor: string;
  /** 1-based line of the heading. */
  line: number;
}

/** The rendered text of a heading's Markdown: code spans kept verbatim, links reduced to their text, emphasis markers dropped. */
export function renderedHeadingText(markdown: string): string {
  const out: string[] = [];
  const parts = markdown.split(/(`+[^`]*`+)/);
  for (const part of parts) {
    if (part.startsWith('`')) out.push(part.replace(/^`+|`+$/g, ''));
    else out.push(part.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\*+/g, ''));
  }
  return out.join('').trim();
}

/** The anchor GitHub derives from a heading's rendered text (before de-duplication). */
export function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

const SECTION = /^(\d+(?:\.\d+)*[a-z]?)\.?\s/;

/** Every ATX heading of the document outside fenced code blocks, with unique anchors. */
export function markdownHeadings(markdown: string): Heading[] {
  const headings: Heading[] = [];
  const used = new Map<string, number>();
  let fence: string | undefined;
  markdown.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const m = /^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+\s*)?$/.exec(line);
    if (!m) return;
    const text = renderedHeadingText(m[2]!);
    const base = githubSlug(text);
    const n = used.get(base);
    used.set(base, (n ?? -1) + 1);
    const anchor = n === undefined ? base : `${base}-${n + 1}`;
    const section = SECTION.exec(text)?.[1];
    headings.push({ depth: m[1]!.length, text, ...(section ? { section } : {}), anchor, line: i + 1 });
  });
  return headings;
}
