/** What went wrong, which decides the process exit code (see docs/commands.md, "Exit codes and errors"). */
export type ErrorKind = 'usage' | 'spec' | 'output' | 'stale';

export const EXIT_CODES: Readonly<Record<ErrorKind | 'internal', number>> = {
  internal: 1,
  usage: 2,
  spec: 3,
  output: 4,
  stale: 5,
};

/**
 * An error meant for the user: one line saying what is wrong and where.
 * `location` is `file:line:column` or `file#/json/pointer`.
 */
export class GeneratorError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly detail: string,
    readonly location?: string,
  ) {
    super(location ? `${location}: ${detail}` : detail);
    this.name = 'GeneratorError';
  }
}

/** Encodes one JSON pointer token (RFC 6901). */
export function pointerToken(token: string | number): string {
  const text = String(token);
  return text.includes('~') || text.includes('/') ? text.replace(/~/g, '~0').replace(/\//g, '~1') : text;
}

/** Decodes one JSON pointer token (`~1` → `/`, `~0` → `~`). */
export function decodePointerToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Builds a JSON pointer from tokens. */
export function pointer(...tokens: (string | number)[]): string {
  return tokens.map((t) => '/' + pointerToken(t)).join('');
}

/** A warning about the spec: generation goes on. */
export interface Diagnostic {
  readonly location: string;
  readonly message: string;
}
