/** McpSettings.Read: the server's icon in `serverInfo.icons` (MCP 2025-11-25), from its setting or else the spec's logo. */
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';
import type { ServerIcon } from '../../model/types.js';
import { DATA_IMAGE, MAX_ICON_LENGTH } from '../../model/icon.js';

/**
 * Declares `serverIcon` (null when there is none). The setting is held to what the spec's logo is held to: an https
 * URL, or a data: URI of a PNG, JPEG, SVG or WebP image, of at most {@link MAX_ICON_LENGTH} characters; anything else
 * (an http URL, a data: URI of HTML) is one line on stderr and no start.
 */
export function readIconSetting(w: CSharpWriter, setting: string, icon: ServerIcon | undefined): void {
  const fromSpec = icon === undefined ? 'null' : `new Icon { Source = ${stringLiteral(icon.src)}${icon.mimeType !== undefined ? `, MimeType = ${stringLiteral(icon.mimeType)}` : ''} }`;
  w.line(`// The server's icon, which clients show beside it: ${setting}, else ${icon === undefined ? 'none' : 'the spec\'s logo'}.`);
  w.line(`var iconUrl = settings[${stringLiteral(setting)}]?.Trim();`);
  w.line(`var iconData = string.IsNullOrEmpty(iconUrl) ? null : System.Text.RegularExpressions.Regex.Match(iconUrl, ${stringLiteral(DATA_IMAGE.source)}, System.Text.RegularExpressions.RegexOptions.IgnoreCase);`);
  w.line(`if (!string.IsNullOrEmpty(iconUrl) && !(iconUrl.Length <= ${MAX_ICON_LENGTH} && (iconData!.Success || (Uri.TryCreate(iconUrl, UriKind.Absolute, out var iconUri) && iconUri.Scheme == "https" && iconUri.Host.Length > 0))))`);
  w.line('{');
  w.line(`    Console.Error.WriteLine($${stringLiteral(`error: ${setting} "{iconUrl}" is not an https URL or a data: URI of a PNG, JPEG, SVG or WebP image (of at most ${MAX_ICON_LENGTH} characters)`)});`);
  w.line('    return null;');
  w.line('}');
  w.line(`Icon? serverIcon = string.IsNullOrEmpty(iconUrl) ? ${fromSpec} : new Icon { Source = iconUrl, MimeType = iconData!.Success ? iconData.Groups[1].Value.ToLowerInvariant().Replace("image/jpg", "image/jpeg") : null };`);
}
