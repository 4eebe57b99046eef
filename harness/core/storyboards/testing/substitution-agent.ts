/**
 * A small loopback MCP agent for `expect_substitution_safe` (substitution-step.ts): it keeps the
 * items of the catalogs `sync_catalogs` sends, and `build_creative` with `include_preview: true`
 * answers a preview whose trackers carry each item's `sku` at `{SKU}` of its own tracker templates,
 * inline (`preview_html`) and behind a `preview_url` it serves. `mode` decides the substitution:
 * `safe` (NFC, then percent-encoding of everything outside RFC 3986 unreserved), `raw` (the value
 * as it is, only HTML-escaped), `uri-component` (encodeURIComponent, which leaves `'()*!` raw) or
 * `strip` (no value at all). The reference mock seller is not used: its sync_catalogs holds feed
 * URLs without items and its build_creative renders no preview, and its fault registry admits only
 * faults targeting built-in checks, which no storyboard step is.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { protocolIds } from '../../token.js';

export type SubstitutionMode = 'safe' | 'raw' | 'uri-component' | 'strip';

export interface SubstitutionAgent {
  /** The MCP endpoint. */
  url: string;
  base: string;
  mode: SubstitutionMode;
  close(): Promise<void>;
}

export const TRACKERS = ['https://track.example/imp?sku={SKU}', 'https://track.example/click?sku={SKU}&v=2'];

function safeEncode(raw: string): string {
  let out = '';
  for (const b of Buffer.from(raw.normalize('NFC'), 'utf8'))
    out += /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

const htmlAttr = (s: string) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

export async function startSubstitutionAgent(mode: SubstitutionMode = 'safe'): Promise<SubstitutionAgent> {
  const ids = protocolIds('adcp');
  const items: Array<{ sku: string }> = [];
  const previews = new Map<string, string>();
  let base = '';
  const agent: SubstitutionAgent = { url: '', base: '', mode, close: async () => undefined };

  const substituteOne = (template: string, sku: string) => {
    const value = { safe: safeEncode(sku), raw: sku, 'uri-component': encodeURIComponent(sku), strip: '' }[agent.mode];
    return template.replaceAll('{SKU}', value);
  };
  const render = () =>
    `<!doctype html><html><body>\n${items
      .map(
        (it, i) =>
          `<a href="${htmlAttr(substituteOne(TRACKERS[1]!, it.sku))}"><img src="${htmlAttr(substituteOne(TRACKERS[0]!, it.sku))}" alt="item ${i}"></a>`,
      )
      .join('\n')}\n<script>new Image().src = "https://track.example/imp?sku=" + "unencoded value"</script></body></html>`;

  const tools = () => {
    const server = new McpServer({ name: 'substitution-agent', version: '1.0.0' });
    const json = (x: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(x) }], structuredContent: x as Record<string, unknown> });
    const args = { inputSchema: z.looseObject({}) };
    server.registerTool(ids.capabilitiesTask, args, async () =>
      json({ [ids.token]: { major_versions: [3] }, supported_protocols: ['media_buy', 'creative'], specialisms: [] }),
    );
    server.registerTool('sync_catalogs', args, async (a) => {
      const catalogs = Array.isArray(a.catalogs) ? (a.catalogs as Array<Record<string, unknown>>) : [];
      items.length = 0;
      for (const c of catalogs) for (const it of Array.isArray(c.items) ? (c.items as Array<Record<string, unknown>>) : []) items.push({ sku: String(it.sku) });
      return json({
        catalogs: catalogs.map((c) => ({ catalog_id: c.catalog_id, action: 'created', item_count: Array.isArray(c.items) ? c.items.length : 0 })),
      });
    });
    server.registerTool('build_creative', args, async (a) => {
      const id = `cr_${previews.size + 1}`;
      const html = render();
      previews.set(id, html);
      const manifest = { format_id: { agent_url: base, id: 'display_300x250' }, assets: {} };
      if (a.include_preview !== true) return json({ creative_manifest: manifest });
      return json({
        creative_manifest: manifest,
        preview: {
          previews: [
            {
              preview_id: id,
              renders: [
                { render_id: `${id}-html`, output_format: 'html', preview_html: html, role: 'primary' },
                { render_id: `${id}-url`, output_format: 'url', preview_url: `${base}/preview/${id}`, role: 'primary' },
                { render_id: `${id}-moved`, output_format: 'url', preview_url: `${base}/moved/${id}`, role: 'companion' },
                { render_id: `${id}-json`, output_format: 'url', preview_url: `${base}/json/${id}`, role: 'companion' },
                { render_id: `${id}-imds`, output_format: 'url', preview_url: 'https://169.254.169.254/latest/meta-data/', role: 'companion' },
              ],
            },
          ],
        },
      });
    });
    return server;
  };

  const http: Server = createServer(async (req, res) => {
    const path = req.url ?? '/';
    const preview = /^\/(preview|moved|json)\/([\w-]+)$/.exec(path);
    if (preview && req.method === 'GET') {
      const html = previews.get(preview[2]!);
      if (!html) return void res.writeHead(404).end();
      if (preview[1] === 'moved') return void res.writeHead(302, { location: `${base}/preview/${preview[2]}` }).end();
      if (preview[1] === 'json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    }
    if (path !== '/mcp') return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await tools().connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  Object.assign(agent, {
    url: `${base}/mcp`,
    base,
    close: () => new Promise<void>((r) => http.close(() => r())),
  });
  return agent;
}
