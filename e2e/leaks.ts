/**
 * Leak checks for the sealing specs: whether a body, URL or header value the page read
 * holds a secret in any spelling a script could turn back into it: as sent, URL-encoded, or once
 * its JSON is parsed (`\/`, `\u0063`…) and its strings URL-decoded.
 */

/** The forms of `text` a page script gets for free: itself, its JSON re-serialised, and both URL-decoded. */
function readings(text: string): string[] {
  const forms = [text];
  try {
    forms.push(JSON.stringify(JSON.parse(text)));
  } catch {
    // Not JSON: the text as it is.
  }
  for (const form of [...forms]) {
    try {
      forms.push(decodeURIComponent(form.replace(/\+/g, ' ')));
    } catch {
      // A malformed escape: the raw forms stand.
    }
  }
  return forms;
}

/** The secrets (non-empty, never a placeholder) that any of `texts` holds, in any of its readings. */
export function leakedSecrets(secrets: Iterable<string>, texts: Iterable<string>): string[] {
  const all = [...texts].flatMap(readings);
  return [...new Set(secrets)].filter((secret) => secret !== '' && !secret.startsWith('sealed:') && all.some((text) => text.includes(secret)));
}

/** `value` with every character written as a JSON `\u00XX` escape (a server that escapes all it can). */
export function unicodeEscaped(value: string): string {
  return [...value].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
}

/** `value` JSON-encoded the way PHP's `json_encode` writes it: `/` as `\/`. */
export function slashEscaped(value: string): string {
  return JSON.stringify(value).slice(1, -1).replace(/\//g, '\\/');
}

/** A made-up token no other value contains, with the characters that escaping and URL-encoding change. */
export function oddToken(label: string): string {
  return `${label}/${Math.random().toString(36).slice(2, 10)}+x=y/${Date.now().toString(36)}`;
}
