/**
 * Minimal XML 1.0 writer. Every text and attribute value goes through the escapers: characters
 * illegal in XML 1.0 are replaced by a visible `\uXXXX` (text.ts), markup characters become
 * entities, and whitespace that a parser would normalise (CR; TAB/LF in attributes) becomes a
 * character reference so values round-trip exactly. No CDATA is ever emitted, so `]]>` in agent
 * text is just text (its `>` is escaped).
 */
import { sanitizeText } from './text.js';

export function escapeXmlText(value: string): string {
  return sanitizeText(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
}

export function escapeXmlAttr(value: string): string {
  return escapeXmlText(value).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}

export type XmlAttrs = Record<string, string | number | boolean | undefined>;

/** An element: name, attributes (undefined ones are left out), children (elements or text). */
export interface XmlElement {
  name: string;
  attrs?: XmlAttrs;
  children?: Array<XmlElement | string>;
}

export function el(name: string, attrs?: XmlAttrs, children?: Array<XmlElement | string | undefined | false>): XmlElement {
  return { name, attrs, children: (children ?? []).filter((c): c is XmlElement | string => typeof c === 'string' || (!!c && typeof c === 'object')) };
}

const NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;

function attrText(attrs: XmlAttrs | undefined): string {
  let out = '';
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined) continue;
    if (!NAME.test(key)) throw new Error(`invalid XML attribute name ${JSON.stringify(key)}`);
    out += ` ${key}="${escapeXmlAttr(String(value))}"`;
  }
  return out;
}

function render(node: XmlElement, depth: number, lines: string[]): void {
  if (!NAME.test(node.name)) throw new Error(`invalid XML element name ${JSON.stringify(node.name)}`);
  const pad = '  '.repeat(depth);
  const open = `${pad}<${node.name}${attrText(node.attrs)}`;
  const children = node.children ?? [];
  if (children.length === 0) {
    lines.push(`${open}/>`);
  } else if (children.every((c) => typeof c === 'string')) {
    lines.push(`${open}>${children.map((c) => escapeXmlText(c as string)).join('')}</${node.name}>`);
  } else {
    lines.push(`${open}>`);
    for (const child of children) {
      if (typeof child === 'string') lines.push(`${pad}  ${escapeXmlText(child)}`);
      else render(child, depth + 1, lines);
    }
    lines.push(`${pad}</${node.name}>`);
  }
}

/** A complete document with the XML declaration. */
export function renderXmlDocument(root: XmlElement): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  render(root, 0, lines);
  return `${lines.join('\n')}\n`;
}
