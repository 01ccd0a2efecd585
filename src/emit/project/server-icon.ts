/** Program.cs: the server's icon in `serverInfo.icons` (MCP 2025-11-25), from its setting or else the spec's logo. */
import { stringLiteral, type CSharpWriter } from '../shared/writer.js';
import type { ServerIcon } from '../../model/types.js';

/** Declares `serverIcon` (null when there is none); a setting that is not an image URL is one line on stderr and no start. */
export function readIconSetting(w: CSharpWriter, setting: string, icon: ServerIcon | undefined): void {
  const fromSpec = icon === undefined ? 'null' : `new Icon { Source = ${stringLiteral(icon.src)}${icon.mimeType !== undefined ? `, MimeType = ${stringLiteral(icon.mimeType)}` : ''} }`;
  w.line();
  w.line(`// The server's icon, which clients show beside it: ${setting}, else ${icon === undefined ? 'none' : 'the spec\'s logo'}.`);
  w.line(`var iconUrl = settings[${stringLiteral(setting)}]?.Trim();`);
  w.line(`Icon? serverIcon = string.IsNullOrEmpty(iconUrl) ? ${fromSpec} : new Icon { Source = iconUrl };`);
  w.line('if (serverIcon is not null && !(Uri.TryCreate(serverIcon.Source, UriKind.Absolute, out var iconUri) && iconUri.Scheme is "https" or "http" or "data"))');
  w.line('{');
  w.line(`    Console.Error.WriteLine($${stringLiteral(`error: ${setting} "{iconUrl}" is not an http(s) URL or a data: URI of an image`)});`);
  w.line('    return 1;');
  w.line('}');
}

/** The `Icons` member of the server's `Implementation`. */
export const ICONS_MEMBER = 'Icons = serverIcon is null ? null : [serverIcon]';
