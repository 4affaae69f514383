/** What the `WWW-Authenticate` header of a 401 says (RFC 6750): the realm, and where a token comes from. */
export interface ChallengeOptions {
  /** The protection space (default `api`). */
  realm?: string;
  /** Where a client gets a token, sent as `error_description` (e.g. `Sign in at /login for an api token`). */
  hint?: string;
}

/** RFC 6750 allows these characters in `error_description`; others become spaces, runs of spaces one. */
const description = (text: string): string => text.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, ' ').replace(/ {2,}/g, ' ').trim();
const quoted = (text: string): string => text.replace(/[\\"]/g, '\\$&').replace(/[^\x20-\x7E]/g, ' ');

/**
 * The challenge of a 401 (decision 78; the body stays decision 26's): `Bearer realm="api"`, plus
 * `error="invalid_token"` when the request sent credentials the API refused, plus the
 * application's hint as `error_description`.
 */
export function bearerChallenge(options: ChallengeOptions, credentialsSent: boolean): string {
  const parts = [`Bearer realm="${quoted(options.realm ?? 'api')}"`];
  if (credentialsSent) parts.push('error="invalid_token"');
  const hint = options.hint ? description(options.hint) : '';
  if (hint) parts.push(`error_description="${hint}"`);
  return parts.join(', ');
}
