/**
 * The charset label a `Content-Type` declares, read as browsers read it (the Fetch standard's
 * "extract a MIME type", with MIME Sniffing's "parse a MIME type"), since what the worker looks for a
 * token in must be the text XHR's `responseText` gives the page. A repeated header reaches the
 * worker joined by `, `: the last valid type counts, with its charset, or the one of the run of types
 * of its essence that it ends. A parameter is a name, `=`, then a value or a quoted string (whose `\`
 * escapes the next character, and in which `;` and `,` separate nothing); one with white space
 * around its `=` has another name (`charset `), so browsers ignore it.
 */

/** One of a header's values: up to a comma outside a quoted string. */
const VALUE = /(?:[^",]|"(?:[^"\\]|\\[^]?)*"?)+/g;

/**
 * A MIME type: its essence (type and subtype, HTTP tokens), then its parameters. White space at the
 * end of them changes no charset (a plain value loses it, a quoted one ends at its quote, and a label
 * is trimmed), so it is left to them.
 */
const TYPE = /^[\t\n\r ]*([-!#$%&'*+.^_`|~\w]+\/[-!#$%&'*+.^_`|~\w]+)[\t\n\r ]*(?:;([^]*))?$/;

/** A parameter: its name, then its quoted value (what follows the closing quote ignored) or its plain one. */
const PARAMETER = /[\t\n\r ]*([^;=]*)(?:=(?:"((?:[^"\\]|\\[^]?)*)"?[^;]*|([^;]*)))?;?/g;

/** The charset label of the MIME type a `Content-Type` value declares; null when it names none, or no valid type. */
export function mimeCharset(contentType: string): string | null {
  let charset: string | null = null;
  let essence: string | undefined;
  let first: string | null = null;
  for (const [value] of contentType.matchAll(VALUE)) {
    const type = TYPE.exec(value);
    const found = type?.[1]?.toLowerCase();
    if (type === null || found === '*/*') continue;
    let own: string | null = null;
    for (const [, name, quoted, plain] of (type[2] ?? '').matchAll(PARAMETER)) {
      // An empty plain value is none; the first valid charset counts.
      const label = quoted?.replace(/\\([^])/g, '$1') ?? (plain?.replace(/[\t\n\r ]+$/, '') || undefined);
      if (own === null && label !== undefined && name?.toLowerCase() === 'charset' && /^[\t\x20-\x7e\x80-\xff]*$/.test(label)) own = label;
    }
    // A type of the essence of the one before it, with no charset of its own, keeps that run's first one.
    if (found !== essence) [essence, first] = [found, own];
    charset = own ?? first;
  }
  return charset;
}
