/**
 * What the base URL setting takes, said once for the generated README, the bundle's settings and the CLI: the API's
 * base URL, or, where the document names its server by a path alone, the origin the path is added to.
 */
import type { ApiModel } from '../../model/types.js';

export function baseUrlMeaning(model: Pick<ApiModel, 'serverPath'>): string {
  return model.serverPath === undefined
    ? 'base URL of the API'
    : `origin of the API (http(s)://host:port): the document's server is the path ${model.serverPath} on it, added to a URL that has no path of its own`;
}
