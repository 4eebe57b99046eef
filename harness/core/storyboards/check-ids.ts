/** The check ids of storyboard steps (compile.ts): `storyboard.<storyboard>.<phase>.<step>`. */

/** A check id part: lower case, `[a-z0-9_-]`, the scenario slash as a dot. */
export const idPart = (s: string) =>
  s
    .toLowerCase()
    .replaceAll('/', '.')
    .replace(/[^a-z0-9_.-]/g, '-');

export const stepCheckId = (sb: string, phase: string, step: string) => `storyboard.${idPart(sb)}.${idPart(phase)}.${idPart(step)}`;
