/**
 * A strict, small XML 1.0 reader for the tests of the XML writers (no XML parser dependency).
 * It accepts the subset the writers emit (declaration, elements, double- or single-quoted
 * attributes, text, the five predefined entities and character references) and throws on
 * anything not well-formed: raw `<` or `&` in values, unknown entities, characters illegal in
 * XML 1.0 (also when written as character references), `]]>` in text, mismatched tags,
 * duplicate attributes, content after the root. Values are returned decoded, with XML's
 * attribute-value normalisation (literal TAB/CR/LF → space), so tests can round-trip them.
 */

export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: Array<XmlNode | string>;
}

const NAME = /[A-Za-z_][A-Za-z0-9._:-]*/y;
const ILLEGAL = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export class XmlSyntaxError extends Error {}

function fail(message: string, pos: number): never {
  throw new XmlSyntaxError(`${message} at offset ${pos}`);
}

function decode(raw: string, start: number, inAttr: boolean): string {
  if (raw.includes('<')) fail('raw < in value', start);
  const bad = ILLEGAL.exec(raw);
  if (bad) fail(`illegal character U+${bad[0].codePointAt(0)!.toString(16)}`, start + bad.index);
  const text = inAttr ? raw.replace(/[\t\n\r]/g, ' ') : raw.replace(/\r\n?/g, '\n');
  return text.replace(/&([^;]*);|&/g, (_match, ref: string | undefined, offset: number) => {
    if (ref === undefined) fail('bare &', start + offset);
    if (ENTITIES[ref]) return ENTITIES[ref];
    const num = /^#x([0-9A-Fa-f]+)$/.exec(ref) ?? /^#([0-9]+)$/.exec(ref);
    if (!num) fail(`unknown entity &${ref};`, start + offset);
    const code = Number.parseInt(num[1], ref.startsWith('#x') ? 16 : 10);
    if (code > 0x10ffff) fail(`character reference out of range &${ref};`, start + offset);
    const ch = String.fromCodePoint(code);
    if (ILLEGAL.test(ch)) fail(`character reference to an illegal character &${ref};`, start + offset);
    return ch;
  });
}

export function parseXml(doc: string): XmlNode {
  let pos = 0;
  const name = (): string => {
    NAME.lastIndex = pos;
    const m = NAME.exec(doc);
    if (!m) fail('expected a name', pos);
    pos += m[0].length;
    return m[0];
  };
  const spaces = (): void => {
    while (pos < doc.length && /\s/.test(doc[pos])) pos++;
  };
  if (doc.startsWith('<?xml')) {
    const end = doc.indexOf('?>');
    if (end < 0) fail('unterminated declaration', 0);
    pos = end + 2;
  }
  spaces();
  const stack: XmlNode[] = [];
  let root: XmlNode | undefined;
  while (pos < doc.length) {
    if (doc.startsWith('</', pos)) {
      pos += 2;
      const closing = name();
      spaces();
      if (doc[pos] !== '>') fail('expected >', pos);
      pos++;
      const open = stack.pop();
      if (!open || open.name !== closing) fail(`mismatched </${closing}>`, pos);
      if (stack.length === 0) break;
    } else if (doc[pos] === '<') {
      if (doc.startsWith('<!', pos) || doc.startsWith('<?', pos)) fail('comments, CDATA and PIs are not expected', pos);
      if (root && stack.length === 0) fail('content after the root element', pos);
      pos++;
      const node: XmlNode = { name: name(), attrs: {}, children: [] };
      for (;;) {
        const before = pos;
        spaces();
        if (doc.startsWith('/>', pos) || doc[pos] === '>') break;
        if (pos === before) fail('expected whitespace before an attribute', pos);
        const key = name();
        if (Object.hasOwn(node.attrs, key)) fail(`duplicate attribute ${key}`, pos);
        spaces();
        if (doc[pos] !== '=') fail('expected =', pos);
        pos++;
        spaces();
        const quote = doc[pos];
        if (quote !== '"' && quote !== "'") fail('expected a quoted value', pos);
        const end = doc.indexOf(quote, pos + 1);
        if (end < 0) fail('unterminated attribute value', pos);
        node.attrs[key] = decode(doc.slice(pos + 1, end), pos + 1, true);
        pos = end + 1;
      }
      if (stack.length > 0) stack[stack.length - 1].children.push(node);
      else root = node;
      if (doc.startsWith('/>', pos)) {
        pos += 2;
        if (stack.length === 0) break;
      } else {
        pos++;
        stack.push(node);
      }
    } else {
      const end = doc.indexOf('<', pos);
      if (end < 0) fail('text outside the root element', pos);
      const raw = doc.slice(pos, end);
      if (raw.includes(']]>')) fail(']]> in text', pos);
      if (stack.length === 0) fail('text outside the root element', pos);
      const text = decode(raw, pos, false);
      if (text.trim() !== '') stack[stack.length - 1].children.push(text);
      pos = end;
    }
  }
  if (stack.length > 0) fail(`unclosed <${stack[stack.length - 1].name}>`, pos);
  if (!root) fail('no root element', pos);
  spaces();
  if (pos < doc.length) fail('content after the root element', pos);
  return root;
}

/** All descendants (depth first) with this element name. */
export function findAll(node: XmlNode, name: string): XmlNode[] {
  const out: XmlNode[] = [];
  const walk = (n: XmlNode): void => {
    if (n.name === name) out.push(n);
    for (const c of n.children) if (typeof c !== 'string') walk(c);
  };
  walk(node);
  return out;
}

/** Concatenated text children of an element. */
export function textOf(node: XmlNode): string {
  return node.children.filter((c): c is string => typeof c === 'string').join('');
}
