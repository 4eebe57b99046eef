/** `--check` selection: comma-separated globs over dotted check ids (`*` any run, `?` one char). */
export function compileCheckGlobs(spec: string): (id: string) => boolean {
  const patterns = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(
      (g) =>
        new RegExp(
          '^' +
            g
              .replace(/[.+^${}()|[\]\\]/g, '\\$&')
              .replaceAll('*', '.*')
              .replaceAll('?', '.') +
            '$',
        ),
    );
  if (patterns.length === 0) throw new Error('empty --check pattern');
  return (id) => patterns.some((p) => p.test(id));
}
