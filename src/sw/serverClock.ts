/**
 * The server's clock, as an answer's `Date` header tells it (RFC 9110 6.6.1), so that a JWT's
 * lifetime is judged against the clock that wrote its `exp`, however far off the device's clock is.
 * Pure functions of header text and times, tested in Node.
 */

/** `Date` counts whole seconds: the server's clock read up to this much more when it wrote one. */
const DATE_RESOLUTION_MS = 1_000;

/**
 * How far past `Date` the device's clock may read at arrival and still count as agreeing with the
 * server's: a second of `Date`'s resolution, and a second more for the answer's way and a slight skew.
 */
const AGREEING_MS = 2_000;

/**
 * An HTTP date (RFC 9110 5.6.7, any of its three formats) as epoch ms; `null` when absent or
 * unreadable. An HTTP date opens with the day's name and holds hh:mm:ss: `Date.parse` alone reads
 * far more ("1.5", "12/31/2099"), which would be a time the server never wrote. The asctime format
 * ends with the year and names no zone, so `Date.parse` would read it in the device's: it is GMT.
 */
export function httpDate(value: string | null): number | null {
  const trimmed = value?.trim() ?? '';
  // Seconds past 60 are no second (V8 reads them as second 0).
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)\D.* \d\d:\d\d:([0-5]\d|60) /.test(trimmed)) return null;
  // A leap second (second 60, which RFC 9110 5.6.7 allows) is read as the second before it: V8 reads
  // it as second 0 of its minute, 60 s early, and an asctime date so spelled as a year in the 1900s.
  const date = Date.parse(trimmed.replace(/(\d\d:\d\d:)60 /, '$159 ').replace(/ \d{4}$/, '$& GMT'));
  // The first number of each format is the day: one its month lacks (31 Nov, 29 Feb of a common
  // year), or hour 24, is no date, which `Date.parse` rolls over into a later day.
  return Number(/\d+/.exec(trimmed)?.[0]) === new Date(date).getUTCDate() ? date : null;
}

/**
 * The server's clock when an answer arrived at `receivedAt` (device ms), whose `Date` read `date`:
 * the device's own finer clock while it agrees with `Date`; else the latest the server's clock could
 * have read, so that a lifetime counted from it is never longer than the server's. Without a `Date`
 * (a cross-origin API that does not expose it), the device's clock serves.
 */
export function serverTimeAt(receivedAt: number, date: number | null): number {
  if (date === null) return receivedAt;
  return receivedAt >= date && receivedAt <= date + AGREEING_MS ? receivedAt : date + DATE_RESOLUTION_MS;
}
