/**
 * A transport's `open()`: one attempt shared by every caller. An aborted attempt says nothing
 * about the agent, so the next caller tries again; MCP replaces the attempt when it reopens a
 * session and forgets it on close.
 */
import type { OpenInfo } from './types.js';

export class OpenOnce {
  private attempt?: Promise<OpenInfo>;

  constructor(private readonly start: (signal?: AbortSignal) => Promise<OpenInfo>) {}

  open(signal?: AbortSignal): Promise<OpenInfo> {
    if (!this.attempt) {
      const attempt = this.start(signal);
      this.attempt = attempt;
      attempt.then(
        (info) => {
          if (info.failure?.kind === 'aborted' && this.attempt === attempt) this.attempt = undefined;
        },
        () => undefined, // the caller awaiting the attempt sees the rejection; this branch must not leave it unhandled
      );
    }
    return this.attempt;
  }

  /** Take `info` as the open state (a session reopened under way), or forget it (undefined: the next open starts again). */
  reset(info?: OpenInfo): void {
    this.attempt = info ? Promise.resolve(info) : undefined;
  }
}
