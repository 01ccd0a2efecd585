import type { PathQuery } from './types.js';

/**
 * A path template taken apart: what the request goes to, and the query pairs it fixes. Some specs put a
 * query (`/items?v=2`, `/search?q={q}`) or a fragment (`/#X-Amz-Target=Service.Op`, `/restapis#mode=import`)
 * into the template to tell operations apart; a fragment is never sent, a query is sent as one.
 */
export function splitPathTemplate(path: string): { requestPath: string; pathQuery: PathQuery[] } {
  const end = path.search(/[?#]/);
  if (end < 0) return { requestPath: path, pathQuery: [] };
  const requestPath = path.slice(0, end) || '/';
  if (path[end] !== '?') return { requestPath, pathQuery: [] };
  const query = path.slice(end + 1).split('#')[0] ?? '';
  const pathQuery: PathQuery[] = [];
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    const value = equals < 0 ? '' : pair.slice(equals + 1);
    const parameter = /^\{([^}]+)\}$/.exec(value)?.[1];
    pathQuery.push({ name: decode(name), value: parameter === undefined ? decode(value) : '', ...(parameter !== undefined && { parameter }) });
  }
  return { requestPath, pathQuery };
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The names of the `{parameters}` of a template, the query part included. */
export function templateParameters(path: string): string[] {
  return [...path.split('#')[0]!.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
}
