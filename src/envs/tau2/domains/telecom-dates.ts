/**
 * The calendar arithmetic telecom's tools do on `datetime.date` values (held as "YYYY-MM-DD").
 * Upstream pins "today" (`telecom/utils.get_today`), so every result is deterministic.
 */
export const TODAY = "2025-02-25";

const toUtc = (iso: string) => {
  const [y, m, d] = iso.split("-").map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d);
};
const fromUtc = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** `d + timedelta(days=n)`. */
export function addDays(iso: string, n: number): string {
  return fromUtc(toUtc(iso) + n * 86_400_000);
}

/** `d.replace(day=1)`. */
export function firstOfMonth(iso: string): string {
  return `${iso.slice(0, 8)}01`;
}

/** The first day of the month after `iso`'s month (`d.replace(day=1) + 32 days`, then day 1). */
export function firstOfNextMonth(iso: string): string {
  return firstOfMonth(addDays(firstOfMonth(iso), 32));
}
