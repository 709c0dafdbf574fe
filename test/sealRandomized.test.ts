// Sealing, randomized (seeded, so every run reads the same cases): tokens from varied alphabets (base64
// with + / =, hex, with `"`, `\`, non-ASCII, prefixes of each other, one equal to a field name or a
// placeholder) in every spelling (a field, inside a string, JSON-escaped per character, \u in either hex
// case, URL- and form-encoded, in HTML, in an event, in JSON quoted inside a JSON string) and random
// chunkings. Each case holds that no token can be read back, that streamed equals whole (as text and
// as bytes), that a body with nothing replaced comes out byte for byte, and that every edit covers a
// token's spelling or a field's value (docs/security.md, "How sealing works").
// SEED0=… N=… run other cases; SHOW=… prints more of each kind of failure; DUMP=file writes them all.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { SealScanner, sealText, applyEdits, type Edit } from '../src/sw/sealScanner.js';
import type { SealPlan } from '../src/sw/sealSpellings.js';
import { sealedBody, sealedWholeParts } from '../src/sw/sealStream.js';

const SEED0 = Number(process.env.SEED0 ?? 1);
const N = Number(process.env.N ?? 1000);
const MODE = process.env.MODE ?? 'all';

type Rng = () => number;
const rngOf = (seed: number): Rng => () => ((seed = (seed * 48271) % 2147483647) - 1) / 2147483646;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: Rng, a: number, b: number) => a + Math.floor(r() * (b - a + 1));

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const HEX = '0123456789abcdef';
const WEIRD = process.env.QB ? ['"', '\\', '/', 'a', 'K', '+', '\\', '"'] : ['a', 'B', '9', '/', '+', '=', '"', '\\', 'é', 'ü', '😀', 'Ω', '☃', '%', '&', ' ', '<', "'", 'ß', '\u2028'];

function mkToken(r: Rng): string {
  const kind = r();
  let len = int(r, 6, 28);
  let t = '';
  if (kind < 0.3) for (let i = 0; i < len; i++) t += pick(r, [...B64]);
  else if (kind < 0.45) for (let i = 0; i < len; i++) t += pick(r, [...B64URL]);
  else if (kind < 0.55) for (let i = 0; i < len; i++) t += pick(r, [...HEX]);
  else {
    for (let i = 0; i < len; i++) t += r() < 0.5 ? pick(r, [...B64]) : pick(r, WEIRD);
  }
  const lead = r();
  if (lead < 0.1) t = '/' + t;
  else if (lead < 0.2) t = '+' + t;
  else if (lead < 0.25) t = '\\' + t;
  else if (lead < 0.3) t = '"' + t;
  return t;
}

function mkPlan(r: Rng): { plan: SealPlan; reals: string[] } {
  const a = mkToken(r);
  const values: [string, string][] = [[a, 'sealed:cart']];
  const rel = r();
  let b: string;
  const ca = Array.from(a);
  if (rel < 0.15) b = ca.slice(0, Math.max(4, ca.length - int(r, 1, 5))).join('');
  else if (rel < 0.3) b = a + mkToken(r).slice(0, 4);
  else if (rel < 0.4) b = ca.slice(int(r, 1, 3)).join('');
  else if (rel < 0.5) b = mkToken(r) + ca.slice(0, 3).join('');
  else if (rel < 0.55) b = 'token';
  else if (rel < 0.6) b = 'sealed:cart';
  else b = mkToken(r);
  if (b !== a && b.length >= 4) values.push([b, 'sealed:access']);
  if (r() < 0.4) values.push([mkToken(r), 'sealed:refresh']);
  const fields: Record<string, string> = r() < 0.8 ? { token: 'sealed:order', access_token: 'sealed:access' } : {};
  return { plan: { values, fields }, reals: values.map(([v]) => v).filter((v) => !v.startsWith('sealed:') && v !== 'token') };
}

const hex4 = (c: number, up: boolean) => { const h = c.toString(16).padStart(4, '0'); return `\\u${up ? h.toUpperCase() : h}`; };
/** JSON-string content for text, mixing escapes per character. */
function jsonEsc(r: Rng, text: string, mix = true): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const x = mix ? r() : 1;
    if (ch.length === 2) { out += x < 0.3 ? hex4(ch.charCodeAt(0), r() < 0.5) + hex4(ch.charCodeAt(1), r() < 0.5) : ch; continue; }
    if (x < 0.25) { out += hex4(code, r() < 0.5); continue; }
    if (ch === '/' && x < 0.6) { out += '\\/'; continue; }
    const short: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };
    out += short[ch] ?? (code < 0x20 ? hex4(code, false) : ch);
  }
  return out;
}
function urlEnc(r: Rng, t: string): string | null {
  let e: string;
  try { e = encodeURIComponent(t); } catch { return null; }
  const k = r();
  if (k < 0.2) return e.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
  if (k < 0.4) return new URLSearchParams({ v: t }).toString().slice(2);
  if (k < 0.5) return e.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  if (k < 0.6) return e.replace(/%2F/g, '/');
  return e;
}
const FILL = ['x', ' ', 'é', '😀', ',', ':', '{', '}', '<b>', '\n', 'data: ', '"', '\\', 'abc', '=', '&', '?', '%', '\u00ff', 'token', '"token":"', 'sealed:', '/'];
function filler(r: Rng): string { let s = ''; for (let i = int(r, 0, 4); i > 0; i--) s += pick(r, FILL); return s; }

/** A body with spellings of tokens. */
function mkBody(r: Rng, reals: string[], withTokens: boolean): string {
  const parts: string[] = [];
  const n = int(r, 1, 6);
  for (let i = 0; i < n; i++) {
    const t = withTokens && reals.length && r() < 0.6 ? pick(r, reals) : null;
    const tok = (mix = true) => t === null ? filler(r) : jsonEsc(r, t, mix);
    const k = r();
    if (k < 0.15) parts.push(`{"token":"${tok()}","n":1}`);
    else if (k < 0.25) parts.push(`{"data":{"attributes":{"token":"${tok()}"}},"msg":"cart ${tok()} x"}`);
    else if (k < 0.32) parts.push(`{"access_token":"${tok()}","token_type":"Bearer"}`);
    else if (k < 0.42) { const u = t === null ? filler(r) : urlEnc(r, t) ?? t; parts.push(`{"self":"https:${jsonEsc(r, '//shop.example/cart?t=' + u + '&x=1')}"}`); }
    else if (k < 0.5) { const u = t === null ? filler(r) : urlEnc(r, t) ?? t; parts.push(`<a href="/cart?t=${u}">x</a>`); }
    else if (k < 0.58) parts.push(`data: {"token":"${tok()}"}\n\n`);
    else if (k < 0.64) parts.push(t === null ? filler(r) : t);
    else if (k < 0.7 && !process.env.NONEST) { // JSON inside a string
      const inner = JSON.stringify({ token: t ?? filler(r) });
      parts.push(`{"payload":${JSON.stringify(inner)}}`);
    } else if (k < 0.74 && !process.env.NONEST) { // JSON inside a string, PHP-style escaped inner
      const inner = `{"t":"${t === null ? filler(r) : jsonEsc(r, t)}"}`;
      parts.push(`{"payload":${JSON.stringify(inner)}}`);
    } else if (k < 0.8) parts.push(`"${tok(false)}"`);
    else if (k < 0.86) { // random bytes-ish text
      let s = ''; for (let j = int(r, 0, 8); j > 0; j--) s += String.fromCharCode(int(r, 0, 255)); parts.push(s);
    } else parts.push(filler(r));
    if (r() < 0.5) parts.push(pick(r, [' ', '\n', ',', '']));
  }
  return parts.join('');
}

// ---- leak detection as a page would decode ----
function decodeEsc(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|[^])/g, (_m, e: string) => (e.length === 5 ? String.fromCharCode(parseInt(e.slice(1), 16)) : ({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' } as Record<string, string>)[e] ?? e));
}
function urlForms(t: string): string[] {
  try {
    const e = encodeURIComponent(t);
    const strict = e.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    const forms = [e, strict, new URLSearchParams({ v: t }).toString().slice(2), strict.replace(/%2F/g, '/'), e.replace(/%2F/g, '/')];
    return [...new Set([...forms, ...forms.map((f) => f.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()))])];
  } catch { return []; }
}
function allStrings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) allStrings(x, out);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(k), allStrings(x, out);
  return out;
}
function tryParse(s: string): unknown { try { return JSON.parse(s); } catch { return undefined; } }
/** Strings a page may get from text: itself, JSON parses (whole, per line, SSE data), nested JSON strings. */
function pageViews(text: string): string[] {
  const views = new Set<string>([text, decodeEsc(text)]);
  const add = (s: string, depth: number) => {
    if (views.has(s) && depth > 0) return;
    views.add(s);
    if (depth > 3) return;
    const p = tryParse(s);
    if (p !== undefined) for (const x of allStrings(p)) add(x, depth + 1);
  };
  add(text, 0);
  for (const line of text.split(/\r\n|\r|\n/)) { add(line, 1); if (line.startsWith('data:')) add(line.slice(5).trimStart(), 1); }
  return [...views];
}
function leaks(text: string, reals: string[]): string[] {
  const found: string[] = [];
  for (const v of pageViews(text)) {
    let uri2: string | null = null; try { uri2 = decodeURIComponent(v); } catch {}
    for (const real of reals) {
      if (v.includes(real)) found.push(`raw ${JSON.stringify(real)} in view ${JSON.stringify(v.slice(0, 200))}`);
      for (const f of urlForms(real)) if (v.includes(f)) found.push(`url ${f} in ${JSON.stringify(v.slice(0, 200))}`);
      if (uri2 !== null && uri2.includes(real) && !v.includes(real)) found.push(`decodeURI ${JSON.stringify(real)} in ${JSON.stringify(v.slice(0,200))}`);
    }
  }
  return [...new Set(found)];
}

// ---- streaming ----
function chunkCuts(r: Rng, len: number): number[] {
  const k = r();
  if (k < 0.2) return Array.from({ length: Math.max(0, len - 1) }, (_, i) => i + 1);
  const cuts: number[] = [];
  for (let at = 0; at < len;) { at += 1 + Math.floor(r() * Math.max(1, len / int(r, 1, 8))); if (at < len) cuts.push(at); }
  return cuts;
}
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  return [...cuts, bytes.length].map((c, i, all) => bytes.slice(i === 0 ? 0 : all[i - 1], c));
}
function streamOf(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({ start(c) { for (const p of parts) c.enqueue(p.slice()); c.close(); } });
}
async function viaBody(bytes: Uint8Array, plan: SealPlan, type: string | null, cuts: number[], head: number): Promise<Uint8Array | Error> {
  try {
    const parts = split(bytes, cuts);
    const reader = streamOf(parts.slice(head)).getReader();
    const body = sealedBody(reader, parts.slice(0, head).map((p) => p.slice()), plan, type);
    return new Uint8Array(await new Response(body).arrayBuffer());
  } catch (e) { return e as Error; }
}
function viaWhole(bytes: Uint8Array, plan: SealPlan, type: string | null, cuts: number[]): Uint8Array | Error {
  try {
    const parts = split(bytes, cuts).map((p) => p.slice());
    const reader = streamOf([]).getReader();
    const out = sealedWholeParts(reader, parts, plan, type);
    const n = out.reduce((s, p) => s + p.length, 0); const all = new Uint8Array(n); let a = 0; for (const p of out) all.set(p, a), (a += p.length);
    return all;
  } catch (e) { return e as Error; }
}
const eqBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

function scannerEdits(text: string, plan: SealPlan): Edit[] {
  const s = new SealScanner(plan);
  return [...s.push(text).edits, ...s.end().edits];
}

const failures: string[] = [];
function fail(kind: string, ctx: object) {
  failures.push(`${kind}: ${JSON.stringify(ctx)}`);
}

it('fuzz sealing', async () => {
  for (let seed = SEED0; seed < SEED0 + N; seed++) {
    const r = rngOf(seed * 7919 + 13);
    const { plan, reals } = mkPlan(r);
    const withTokens = r() < 0.8;
    const text = mkBody(r, reals, withTokens);
    const ctx = { seed, text, values: plan.values, fields: plan.fields };
    if (!(text as any).isWellFormed() || !plan.values.every(([v]) => (v as any).isWellFormed())) continue;
    // whole-text sealing
    let whole: string;
    try { whole = sealText(text, plan) ?? text; } catch (e) { fail('throw', { ...ctx, e: String(e) }); continue; }
    if (MODE === 'all' || MODE === 'leak') {
      const l = leaks(whole, reals);
      if (l.length) fail('leak-text', { ...ctx, whole, l });
    }
    // edits only on token-ish spans
    if (MODE === 'all' || MODE === 'edits') {
      const edits = scannerEdits(text, plan);
      for (const ed of edits) {
        const span = text.slice(ed.from, ed.to);
        const decs = [decodeEsc(span)];
        for (let k = 0; k < 4; k++) decs.push(decodeEsc(decs.at(-1)!));
        const dec = decs[0]!;
        const spellings = plan.values.flatMap(([v]) => [v, ...urlForms(v)]);
        const ok = Object.values(plan.fields).includes(ed.text) || spellings.some((sp) => span === sp || decs.includes(sp) || decs.some((d) => sp.endsWith(d) || sp.startsWith(d)) || sp.endsWith(span) || sp.startsWith(span));
        if (!ok) fail('edit-extra', { ...ctx, span, dec, ed });
      }
    }
    // streaming as text
    if (MODE === 'all' || MODE === 'stream') {
      const cuts = chunkCuts(r, text.length);
      const s = new SealScanner(plan);
      const eds: Edit[] = [];
      let at = 0;
      for (const c of [...cuts, text.length]) { eds.push(...s.push(text.slice(at, c)).edits); at = c; }
      eds.push(...s.end().edits);
      const streamed = applyEdits(text, eds);
      if (streamed !== whole) fail('stream-text', { ...ctx, cuts, whole, streamed });
      // bytes
      const bytes = new TextEncoder().encode(text);
      const type = pick(r, [null, 'application/json', 'text/event-stream', 'text/html; charset=utf-8']);
      let bcuts = chunkCuts(r, bytes.length);
      if (process.env.NOSPLITMB) bcuts = bcuts.filter((c) => (bytes[c]! & 0xc0) !== 0x80);
      const wb = viaWhole(bytes, plan, type, bcuts);
      const sb = await viaBody(bytes, plan, type, bcuts, int(r, 0, 2));
      if (wb instanceof Error || sb instanceof Error) { fail('bytes-throw', { ...ctx, wb: String(wb), sb: String(sb) }); continue; }
      const wbt = new TextDecoder().decode(wb);
      if (!eqBytes(wb, sb)) fail('stream-bytes', { ...ctx, bcuts, wb: wbt, sb: new TextDecoder().decode(sb) });
      if (wbt !== whole) fail('bytes-vs-text', { ...ctx, wbt, whole, bcuts, type });
      if (whole === text && !eqBytes(wb, bytes)) fail('unchanged-bytes', ctx);
      const l = leaks(wbt, reals);
      if (l.length) fail('leak-bytes', { ...ctx, l });
    }
  }
  const byKind = new Map<string, string[]>();
  for (const f of failures) { const k = f.slice(0, f.indexOf(':')); byKind.set(k, [...(byKind.get(k) ?? []), f]); }
  for (const [k, fs] of byKind) { console.log(`== ${k}: ${fs.length}`); for (const f of fs.slice(0, Number(process.env.SHOW ?? 3))) console.log(f.slice(0, 1500)); }
  if (process.env.DUMP) (await import('node:fs')).writeFileSync(process.env.DUMP, JSON.stringify(failures.map((f) => ({ kind: f.slice(0, f.indexOf(':')), ...JSON.parse(f.slice(f.indexOf(':') + 1)) }))));
  assert.equal(failures.length, 0);
});
