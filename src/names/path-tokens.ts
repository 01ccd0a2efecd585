import { asciiWords, memoised } from './identifiers.js';

/** A path taken apart for naming: resource words, parameters, actions and OData's `$count`, `$ref`, `$value`. */
export type Token =
  | { kind: 'static'; words: readonly string[] }
  | { kind: 'param'; name: string }
  | { kind: 'action'; words: readonly string[]; namespace?: readonly string[] }
  | { kind: 'odata'; word: 'count' | 'ref' | 'value' };

/** Version segments, left out of names: `v2`, `v1beta1` (Kubernetes), `1.0`, `2010-04-01` (Twilio). */
export const VERSION = /^v\d+((alpha|beta)\d*)?([._]\d+)*$|^\d+(\.\d+)+$|^\d{4}-\d{2}-\d{2}$/i;

/** Splits a path into static words, parameters and `:action` suffixes. */
export function tokenize(path: string): Token[] {
  const tokens: Token[] = [];
  for (const segment of path.split('/')) if (segment !== '') tokens.push(...segmentTokens(segment));
  return tokens;
}

/** The tokens of one path segment; segments recur across paths (`repos`, `{owner}`), so memoised. */
const segmentTokens = (segment: string): readonly Token[] => memoised(SEGMENTS, segment, (text) => {
  // An Express-style parameter (`/drains/:idOrUrl`).
  if (/^:\w+$/.test(text)) return [{ kind: 'param', name: text.slice(1) }];
  const odata = /^\$(count|ref|value)$/.exec(text)?.[1];
  if (odata === 'count' || odata === 'ref' || odata === 'value') return [{ kind: 'odata', word: odata }];
  // A domain names an API group (Kubernetes' `admissionregistration.k8s.io`): its words before the registered domain.
  if (DOMAIN.test(text)) {
    const labels = text.split('.');
    return [{ kind: 'static', words: asciiWords((labels.length > 2 ? labels.slice(0, -2) : labels.slice(0, 1)).join(' ')) }];
  }
  // An operation qualified by its namespace is an action: OData's `microsoft.graph.sendMail` and `microsoft.graph.delta()`,
  // and RPC's `artist.albums.get`, whose namespace names what it acts on.
  const qualified = QUALIFIED.exec(text);
  if (qualified) {
    const pieces = text.replace(/\(.*$/, '').split('.');
    return [...paramTokens(text), { kind: 'action', words: asciiWords(qualified[1] ?? ''), namespace: asciiWords(pieces.slice(0, -1).join(' ')) }];
  }
  const tokens: Token[] = [];
  const [main = '', ...actions] = text.split(':');
  const staticText = main.replace(/\{[^}]*\}/g, ' ').replace(FORMAT, '');
  const staticWords = VERSION.test(staticText.trim()) ? [] : asciiWords(staticText);
  if (staticWords.length > 0) tokens.push({ kind: 'static', words: staticWords });
  tokens.push(...paramTokens(main));
  for (const action of actions) {
    const actionWords = asciiWords(action.replace(/\{[^}]*\}/g, ' '));
    if (actionWords.length > 0) tokens.push({ kind: 'action', words: actionWords });
  }
  return tokens;
});
const SEGMENTS = new Map<string, readonly Token[]>();
const QUALIFIED = /^(?:[A-Za-z]\w*\.){2,}([A-Za-z]\w*)(?:\(.*\))?$/;
const DOMAIN = /^(?:[a-z][a-z0-9-]*\.)+(?:io|com|org|net|dev|gov|edu)$/;
const paramTokens = (text: string): Token[] => (text.match(/\{([^}]*)\}/g) ?? []).map((param) => ({ kind: 'param', name: param.slice(1, -1) }));

/** The format a path's last segment asks for (`/ip.txt` → txt), which tells `/ip` and `/ip.txt` apart. */
export function formatOf(path: string): string | undefined {
  return FORMAT.exec(path)?.[1]?.toLowerCase();
}
const FORMAT = /\.(json|xml|yaml|txt)$/i;

/**
 * Leading static segments shared by every path (`/api/v1`), each followed by another static segment
 * (so not a collection such as `/repos/{owner}`) and leaving each path a static segment after them.
 */
export function commonPrefixLength(paths: readonly string[]): number {
  // Each path is split when it is first looked at: in most APIs the second path already differs from the first.
  const split: (string[] | undefined)[] = [];
  const segmentsOf = (index: number): string[] => (split[index] ??= (paths[index] as string).split('/').filter((s) => s !== ''));
  if (paths.length === 0) return 0;
  const first = segmentsOf(0);
  let length = 0;
  for (; length < first.length; length++) {
    const segment = first[length];
    if (segment === undefined || segment.includes('{') || segment.includes(':')) break;
    let shared = true;
    for (let index = 0; index < paths.length && shared; index++) {
      const s = segmentsOf(index);
      shared = s[length] === segment && !s[length + 1]?.startsWith('{') && s.slice(length + 1).some((rest) => !rest.startsWith('{'));
    }
    if (!shared) break;
  }
  return length;
}
