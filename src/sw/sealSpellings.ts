/**
 * What the seal scanner looks for: a plan (the values the worker knows, the fields that hold
 * tokens), each value spelled every way a server may write it (as it is, URL-encoded in the usual
 * spellings), in the units of the body being read, with one pattern that finds any spelling.
 * Compiled once per plan: a worker holds a handful of values at a time.
 */

/** What to seal in a response: the values the worker knows, and the fields that hold tokens. */
export interface SealPlan {
  /** `[real, placeholder]` pairs; where two values overlap, the longer one wins. */
  readonly values: readonly (readonly [real: string, placeholder: string])[];
  /**
   * Field names, each with the placeholder its string value becomes unless it is a known value or a
   * placeholder: the dialect's cart and order token field (`token`) `sealed:order`; a token
   * response's `access_token` `sealed:access`, even when the worker could not read the response (cut off).
   */
  readonly fields: Readonly<Record<string, string>>;
}

/** How the units of a body spell text; for a string, or a body in a single-byte charset, the units are the text. */
export interface Units {
  /** `text` spelled in units. */
  of(text: string): string;
  /** A run of units past ASCII, as the text it spells. */
  text(units: string): string;
}

/** Units that are the text itself. */
export const TEXT_UNITS: Units = { of: (text) => text, text: (units) => units };

/** Spellings and what each becomes, longest first, with one pattern that finds any of them. */
export interface Matcher {
  readonly any: RegExp | null;
  readonly by: ReadonlyMap<string, string>;
  readonly list: readonly string[];
}

/** A plan compiled for one kind of units. */
export interface Known {
  /** The spellings in units, for text read as it stands. */
  readonly raw: Matcher;
  /** The spellings as text, for a decoded literal. */
  readonly text: Matcher;
  /** Each real value in units and as text, with its placeholder, longest first: for cut-off tails. */
  readonly reals: readonly (readonly [units: string, text: string, placeholder: string])[];
  readonly fields: ReadonlyMap<string, string>;
  /** A plain literal naming a field, quotes included: `"token"`. */
  readonly keys: RegExp | null;
  /** The longest escaped spelling of a field name: six units per character (`\u0074`). */
  readonly longestKey: number;
}

/** Plans compiled, by units and by plan, so the values a worker holds are spelled once, not on every response. */
const compiled = new WeakMap<Units, Map<string, Known>>();

/** The same by the plan itself: a plan used again is found without spelling out its key. */
const compiledPlans = new WeakMap<Units, WeakMap<SealPlan, Known>>();

/** The plan compiled for `units`: found by the plan itself when it was used before, else by its values. */
export function compile(plan: SealPlan, units: Units): Known {
  let byIdentity = compiledPlans.get(units);
  if (byIdentity === undefined) compiledPlans.set(units, (byIdentity = new WeakMap()));
  const same = byIdentity.get(plan);
  if (same !== undefined) return same;
  const key = `${plan.values.map((pair) => pair.join('\n')).join('\n\n')}\n\n\n${Object.entries(plan.fields).flat().join('\n')}`;
  let byPlan = compiled.get(units);
  if (byPlan === undefined) compiled.set(units, (byPlan = new Map()));
  const known = byPlan.get(key) ?? spelled(plan, units);
  // A worker holds a handful of values at a time; older plans are forgotten wholesale.
  if (byPlan.size > 16) byPlan.clear();
  byPlan.set(key, known);
  byIdentity.set(plan, known);
  return known;
}

/** The plan's spellings and fields, for `units`. */
function spelled(plan: SealPlan, units: Units): Known {
  const spellings: [spelling: string, placeholder: string][] = [];
  for (const [real, placeholder] of plan.values) {
    if (real === '') continue;
    let encodings: string[] = [];
    try {
      const encoded = encodeURIComponent(real);
      const strict = encoded.replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
      // RFC 3986 strictly (`!'()*` too), a form (`+` for a space: URLSearchParams, PHP, Ruby), and
      // Python's `quote`, which leaves `/` as it is and encodes `!'()*` (and, as `encodeURIComponent`
      // with `/` kept, other servers' path escaping).
      encodings = [encoded, strict, new URLSearchParams({ v: real }).toString().slice(2), strict.replace(/%2F/g, '/'), encoded.replace(/%2F/g, '/')];
    } catch {
      // A lone surrogate (JSON's `"\ud800"` is a legal token) has no URL spelling: the value is
      // still sealed as it stands and JSON-escaped, and every other value in every spelling.
    }
    for (const spelling of new Set([real, ...encodings, ...encodings.map(lowerHex)])) spellings.push([spelling, placeholder]);
  }
  // Longest first, so that where one value holds another the longer one wins.
  spellings.sort((x, y) => y[0].length - x[0].length);
  const reals = plan.values.filter(([real]) => real !== '').map(([real, placeholder]) => [units.of(real), real, placeholder] as const);
  const names = Object.keys(plan.fields);
  return {
    raw: matcher(spellings.map(([spelling, placeholder]) => [units.of(spelling), placeholder])),
    text: matcher(spellings),
    reals: reals.sort((x, y) => y[1].length - x[1].length),
    fields: new Map(Object.entries(plan.fields)),
    keys: names.length === 0 ? null : new RegExp(`"(?:${names.map(escapeRegExp).join('|')})"`, 'g'),
    longestKey: Math.max(0, ...names.map((name) => name.length * 6)),
  };
}

function matcher(spellings: readonly (readonly [spelling: string, placeholder: string])[]): Matcher {
  const by = new Map<string, string>();
  for (const [spelling, placeholder] of spellings) if (!by.has(spelling)) by.set(spelling, placeholder);
  const list = [...by.keys()];
  return { any: list.length === 0 ? null : new RegExp(list.map(escapeRegExp).join('|'), 'g'), by, list };
}

function lowerHex(encoded: string): string {
  return encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
