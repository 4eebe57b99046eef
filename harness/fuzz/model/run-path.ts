/**
 * A property's replay path: fast-check's counterexample path, and for command sequences its
 * replayPath (which commands ran), joined by `|` into the one string FuzzRunOptions.path carries.
 */
export function joinPath(path: string, replayPath?: string): string {
  return replayPath ? `${path}|${replayPath}` : path;
}

export function splitPath(joined?: string): { path?: string; replayPath?: string } {
  if (!joined) return {};
  const i = joined.indexOf('|');
  return i < 0 ? { path: joined } : { path: joined.slice(0, i), replayPath: joined.slice(i + 1) };
}
