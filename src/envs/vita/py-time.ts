/**
 * The slice of Python's `datetime.strptime`/`strftime` VitaBench's tools use, for the formats
 * `%Y-%m-%d %H:%M:%S` and `%Y-%m-%d`. `strptime` is lenient as CPython's is: single-digit month,
 * day, hour, minute and second are accepted ("2025-6-1 9:5:0"), a space may pad the day, and the
 * date must exist; any run of (Unicode) whitespace separates date and time. Times are naive: arithmetic runs on UTC milliseconds, formatting reads UTC.
 */
const DATE = String.raw`(\d{4})-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])`;
const TIME = String.raw`(2[0-3]|[0-1]\d|\d):([0-5]\d|\d):(6[0-1]|[0-5]\d|\d)`;
// strptime turns each whitespace run of the format into `\s+`, Python's Unicode whitespace (some
// task files separate date and time with a no-break space).
const PY_SPACE = String.raw`[\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+`;
const DATETIME_RE = new RegExp(`^${DATE}${PY_SPACE}${TIME}$`);
const DATE_RE = new RegExp(`^${DATE}$`);

/** Milliseconds of a naive datetime, or null when `strptime` would raise ValueError. */
export function parseDateTime(s: unknown, withTime = true): number | null {
  if (typeof s !== "string") return null;
  const m = (withTime ? DATETIME_RE : DATE_RE).exec(s);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [h, mi, sec] = withTime ? [Number(m[4]), Number(m[5]), Number(m[6])] : [0, 0, 0];
  if (sec > 59) return null; // the regex admits leap seconds; datetime() does not
  const ms = Date.UTC(y, mo - 1, d, h, mi, sec);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return y < 100 ? null : ms;
}

export const checkTimeFormat = (s: unknown, withTime = true): boolean => parseDateTime(s, withTime) !== null;

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** `strftime("%Y-%m-%d %H:%M:%S")`. */
export function formatDateTime(ms: number): string {
  const t = new Date(ms);
  return (
    `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ` +
    `${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`
  );
}

const WEEKDAYS_EN = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const WEEKDAYS_ZH = ["一", "二", "三", "四", "五", "六", "日"];

/** Upstream's `get_weekday(time, language)` for a `%Y-%m-%d %H:%M:%S` string. */
export function weekday(time: string, lang: "en" | "zh"): string {
  const ms = parseDateTime(time);
  if (ms === null) throw new Error(`time data '${time}' does not match format '%Y-%m-%d %H:%M:%S'`);
  const index = (new Date(ms).getUTCDay() + 6) % 7; // Python: Monday is 0
  return lang === "en" ? (WEEKDAYS_EN[index] as string) : `星期${WEEKDAYS_ZH[index] as string}`;
}
