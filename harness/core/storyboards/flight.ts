/**
 * Storyboards were authored with literal flight dates (`start_time`, `end_time`) that were in the
 * future when written. A flight that has wholly ended by the day of the run is stale authoring, not
 * a test: a seller rightly books it as already completed, and every later step fails for a reason
 * that is nobody's defect. Such a flight is sent whole years later, the first year its end is
 * ahead, so months, days, times and the gap between start and end stay as authored (a reversed
 * flight stays reversed). A flight whose end is still ahead is sent as written, so a deliberately
 * past start (the past-start storyboards) keeps its meaning.
 */
export interface Rebased {
  args: Record<string, unknown>;
  note?: string;
}

const YEAR_LIMIT = 50;

export function rebaseStaleFlight(args: Record<string, unknown>, now: number): Rebased {
  const start = typeof args.start_time === 'string' ? Date.parse(args.start_time) : Number.NaN;
  const end = typeof args.end_time === 'string' ? Date.parse(args.end_time) : Number.NaN;
  if (Number.isNaN(end) || end > now) return { args };
  let years = 1;
  while (years <= YEAR_LIMIT && addYears(end, years) <= now) years++;
  if (years > YEAR_LIMIT) return { args };
  const shifted: Record<string, unknown> = { ...args, end_time: new Date(addYears(end, years)).toISOString() };
  if (!Number.isNaN(start)) shifted.start_time = new Date(addYears(start, years)).toISOString();
  return {
    args: shifted,
    note: `the authored flight (${String(args.start_time ?? '-')} to ${String(args.end_time)}) had ended before the run; sent ${years} year${years > 1 ? 's' : ''} later (${String(shifted.start_time ?? '-')} to ${String(shifted.end_time)})`,
  };
}

function addYears(ms: number, years: number): number {
  const d = new Date(ms);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.getTime();
}
