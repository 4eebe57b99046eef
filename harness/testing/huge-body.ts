/** Test helper: answer with `bytes` of JSON whitespace, chunked (no content-length), the way a hostile host streams a huge file. */
import type { ServerResponse } from 'node:http';

export function sendHugeBody(res: ServerResponse, bytes: number): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.on('error', () => {}); // the client hangs up at its cap
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  const pump = (): void => {
    while (sent < bytes) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}
