/**
 * A Store API login answered 200 with a JWT that has already expired by the server's own clock (its
 * lifetime a tenth of a millisecond): the worker refuses to keep it, and the login rejects
 * `bad_response`. The server issued a pair all the same, whose refresh token would stay good for 30
 * days: the worker revokes it (`POST /auth/logout`), so no pair the server issued is left live.
 * On 3ffce34 the pair was abandoned unrevoked.
 */
import { bridgeError, expect, requestsTo, test } from './support.js';
import { openV3Shop, stateOf, V3, V3_STOREFRONT, v3 } from './storeApiV3.js';

test.use({ storefrontOptions: { ...V3_STOREFRONT, accessTokenLifetime: 0.0001 } });

test('a login whose JWT has expired on arrival is refused, and the pair the server issued is revoked', async ({ context, storefront }) => {
  const page = await openV3Shop(context, storefront);
  const error = await bridgeError(page, 'login', storefront.user);
  expect(error).toMatchObject({ code: 'bad_response', status: 200 });
  expect(await stateOf(page)).toMatchObject({ signedIn: false });

  const issued = requestsTo(storefront, 'POST', `${V3}/auth/login`);
  expect(issued).toHaveLength(1);
  await expect.poll(() => requestsTo(storefront, 'POST', `${V3}/auth/logout`).length, { message: 'the pair is revoked' }).toBe(1);
  expect(v3(storefront).refreshTokens.size, 'no refresh token is left live').toBe(0);
  expect(storefront.stats().revocationsIgnored).toBe(0);
});
