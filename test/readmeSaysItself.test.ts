// What the README itself must say (not only a page it links to), since a newcomer reads no further:
// that Spree 5 cannot revoke a JWT, which stays valid at the server until its `exp` (one hour by default), and, in its CORS
// section, that a cross-origin Store API must expose `Date` for the worker to judge a JWT's lifetime.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The README's sections, by heading (## or ###), each with its text. */
function sections(markdown: string): Map<string, string> {
  const found = new Map<string, string>();
  let heading = '';
  for (const line of markdown.split('\n')) {
    const match = /^#{2,3}\s+(.*)$/.exec(line);
    if (match !== null) heading = match[1] ?? '';
    else found.set(heading, `${found.get(heading) ?? ''}${line}\n`);
  }
  return found;
}

describe('the README says it itself', () => {
  it('that Spree cannot revoke a JWT: it stays valid until its exp, one hour by default', () => {
    assert.match(readme, /JWT/);
    assert.match(readme, /revoke[^.]*JWT|JWT[^.]*revok/i, 'no sentence says a JWT cannot be revoked');
    assert.match(readme, /one hour|1 hour|60 minutes/i, 'the default lifetime is not given');
  });

  it("has a CORS section that says to expose Date", () => {
    const cors = [...sections(readme)].find(([heading]) => /cors/i.test(heading));
    assert.ok(cors !== undefined, `no CORS section among: ${[...sections(readme).keys()].filter(Boolean).join(' | ')}`);
    assert.match(cors[1], /Date/);
    assert.match(cors[1], /Expose/i);
  });
});
