import { isRecord } from '../shared/protocol.js';

/** The guest cart credential and the number shown to the shopper. */
export interface HeldCart {
  token: string;
  number: string;
}

/**
 * Reads the cart token and number from a cart document (SPEC.md 2): the token at
 * `data.attributes.token`, else `data.token`; the number at `data.attributes.number`, else
 * `data.number`. Returns `null` when either is missing or not a non-empty string.
 */
export function readCartDocument(body: unknown): HeldCart | null {
  if (!isRecord(body) || !isRecord(body['data'])) return null;
  const data = body['data'];
  const attributes = isRecord(data['attributes']) ? data['attributes'] : {};
  const token = firstString(attributes['token'], data['token']);
  const number = firstString(attributes['number'], data['number']);
  return token === null || number === null ? null : { token, number };
}

function firstString(...values: unknown[]): string | null {
  for (const value of values) if (typeof value === 'string' && value !== '') return value;
  return null;
}
