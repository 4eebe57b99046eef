/** An error answer of the mock registry: `{error: {code, message}, ...extra}` with its status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Members of the error body beside `error` (digest 6.3: `members_only`, `code`, `valid_roles`). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}
