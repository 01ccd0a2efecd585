/** A value from the spec or the command line in a project file: MSBuild's special characters as %XX (no $(…) or @(…) expands), then XML. */
export const msbuildLiteral = (text: string): string => text
  .replace(/[%$;'*?]|@(?=\()/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
