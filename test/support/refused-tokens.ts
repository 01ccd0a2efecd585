/**
 * Access tokens a resource server must refuse, made from a valid one: the same claims under a signature from
 * another key (with the same header, kid included), under `alg: none` with no signature, and signed with the
 * right key but naming another issuer. (A token for another audience and an expired one come from the
 * authorization server itself: see test/support/authorization-server.ts.)
 */
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';

/** Tokens for one resource that a resource server must refuse, each for one reason. */
export interface RefusedTokens {
  /** Issued by the authorization server for another resource: wrong `aud`. */
  readonly wrongAudience: string;
  /** Issued by the authorization server, already expired (by an hour, beyond any clock skew allowance). */
  readonly expired: string;
  /** The claims of a valid token, header and all, signed by a key the authorization server never had. */
  readonly forgedSignature: string;
  /** The claims of a valid token with `alg: none` and an empty signature. */
  readonly algNone: string;
  /** Signed by the authorization server's own key, but `iss` is another server. */
  readonly wrongIssuer: string;
}

/** A URL no authorization server of these tests answers at (port 9 is the discard service). */
export const OTHER_ISSUER = 'http://127.0.0.1:9';

/** The forged variants of `valid` (a JWT access token); `signingKey` is the authorization server's private key. */
export async function forgedTokens(valid: string, signingKey: CryptoKey): Promise<Pick<RefusedTokens, 'forgedSignature' | 'algNone' | 'wrongIssuer'>> {
  const header = decodeProtectedHeader(valid);
  const claims = decodeJwt(valid);
  const { privateKey: otherKey } = await generateKeyPair('RS256');
  const forgedSignature = await new SignJWT(claims).setProtectedHeader({ ...header, alg: 'RS256' }).sign(otherKey);
  const segment = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const algNone = `${segment({ ...header, alg: 'none' })}.${segment(claims)}.`;
  const wrongIssuer = await new SignJWT({ ...claims, iss: OTHER_ISSUER }).setProtectedHeader({ ...header, alg: 'RS256' }).sign(signingKey);
  return { forgedSignature, algNone, wrongIssuer };
}
