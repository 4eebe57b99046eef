/** The storyboard bundle shipped in the pinned @adcp/sdk (suites/interop/adcp-sdk-sellers), read in place; '' when it is not installed. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SDK = join(ROOT, 'suites/interop/adcp-sdk-sellers/node_modules/@adcp/sdk');

export const SDK_BUNDLE = existsSync(join(SDK, 'ADCP_VERSION')) ? join(SDK, 'compliance/cache', readFileSync(join(SDK, 'ADCP_VERSION'), 'utf8').trim()) : '';
