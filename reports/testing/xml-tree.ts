/**
 * XML documents read by someone else's reader, for the tests of the XML writers: `saxes`, a
 * strict XML 1.0 parser that reports every well-formedness error (raw `<` or `&`, unknown
 * entities, characters illegal in XML 1.0 also when written as character references, `]]>`
 * in text, mismatched tags, duplicate attributes, a second root, content after the root).
 * This file only turns its events into a small tree for the assertions; values come decoded
 * as the parser decodes them (attribute-value normalisation included).
 */
import { SaxesParser } from 'saxes';

export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: Array<XmlNode | string>;
}

export class XmlSyntaxError extends Error {
  override name = 'XmlSyntaxError';
}

/** Parse a whole document; throws XmlSyntaxError on the first well-formedness error. */
export function parseXml(doc: string): XmlNode {
  const parser = new SaxesParser();
  const stack: XmlNode[] = [];
  let root: XmlNode | undefined;
  let error: Error | undefined;
  parser.on('error', (err) => {
    error ??= err;
  });
  parser.on('opentag', (tag) => {
    const node: XmlNode = { name: tag.name, attrs: { ...(tag.attributes as Record<string, string>) }, children: [] };
    if (stack.length > 0) stack[stack.length - 1]!.children.push(node);
    else root = node;
    stack.push(node);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  const text = (t: string) => {
    if (stack.length > 0 && t.trim() !== '') stack[stack.length - 1]!.children.push(t);
  };
  parser.on('text', text);
  parser.on('cdata', text);
  parser.write(doc).close();
  if (error) throw new XmlSyntaxError(error.message);
  if (!root) throw new XmlSyntaxError('no root element');
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
