/**
 * The allure-js-commons runtime API, when the test run has one. allure-js-commons comes with
 * allure-vitest; without it (or without the allure-vitest reporter, which installs the test
 * runtime) the entry point reports nothing to Allure instead of warning on every call.
 */
type AllureFacade = typeof import('allure-js-commons');

interface Loaded {
  facade: AllureFacade;
  runtime: () => unknown;
}

let loaded: Promise<Loaded | null> | undefined;

function load(): Promise<Loaded | null> {
  loaded ??= (async () => {
    try {
      const facade = await import('allure-js-commons');
      const sdk = await import('allure-js-commons/sdk/runtime');
      return { facade, runtime: () => sdk.getGlobalTestRuntime() };
    } catch {
      return null;
    }
  })();
  return loaded;
}

export interface AllureApi {
  facade: AllureFacade;
  /**
   * A test-level attachment. The facade's `attachment()` wraps each attachment in a step of its
   * own; reports/allure.ts (the reference picture) attaches evidence to the test itself, so
   * this sends the SDK's `attachment_content` message without the step when the runtime takes
   * messages, and falls back to the facade otherwise.
   */
  attach(name: string, content: string, contentType: string): Promise<void>;
}

type MessageRuntime = { sendMessage: (message: unknown) => Promise<void> | void };

/** The API when an Allure test runtime is installed for the running test, else null. */
export async function allureApi(): Promise<AllureApi | null> {
  const api = await load();
  if (!api) return null;
  const runtime = api.runtime() as { constructor: { name: string } } & Partial<MessageRuntime>;
  if (runtime.constructor.name === 'NoopTestRuntime') return null;
  return {
    facade: api.facade,
    async attach(name, content, contentType) {
      if (typeof runtime.sendMessage !== 'function') return api.facade.attachment(name, content, { contentType });
      await runtime.sendMessage({
        type: 'attachment_content',
        data: { name, content: Buffer.from(content, 'utf8').toString('base64'), encoding: 'base64', contentType, wrapInStep: false, timestamp: Date.now() },
      });
    },
  };
}
