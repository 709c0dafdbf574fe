/**
 * Whether a publishable key can be one. The Store API's keys are single tokens (`pk_…`). A page
 * built without its environment keeps the placeholder instead (Vite's HTML `%VITE_…%`, a shell or
 * template's `${…}` or `{{…}}`), and a key pasted with a space or a line break in it is another key:
 * the server would answer 401 to every request, long after the mistake. Both are refused at once.
 */

/** Why `key` (trimmed) cannot be a publishable key, naming the setting; `null` when it may be one. */
export function publishableKeyRefusal(key: string): string | null {
  return /%[^%\s]+%|\$\{[^}]*\}|\{\{[^}]*\}\}|\s/.test(key)
    ? `publishableKey ${JSON.stringify(key)} is not a key (a placeholder left unfilled, or whitespace); give it the Store API's "pk_…" key.`
    : null;
}
