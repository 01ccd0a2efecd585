/**
 * Finds where JSON text first goes wrong. Runs only after `JSON.parse` failed, whose messages do not
 * always give a position; returns the offset and what was expected there.
 */
export function locateJsonError(text: string): { offset: number; expected: string } {
  let i = 0;
  const fail = (expected: string): never => {
    throw { offset: i, expected };
  };
  const space = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i] ?? '')) i++;
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) i += word.length;
    else fail('a JSON value');
  };
  const string = (): void => {
    if (text[i] !== '"') fail('a double-quoted string');
    i++;
    while (i < text.length && text[i] !== '"') {
      const c = text.charCodeAt(i);
      if (c < 0x20) fail('a closing quote before the line ends');
      i += text[i] === '\\' ? 2 : 1;
    }
    if (i >= text.length) fail('a closing quote');
    i++;
  };
  const number = (): void => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match) fail('a JSON value');
    i += match?.[0].length ?? 0;
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      space();
      if (text[i] === '}') { i++; return; }
      for (;;) {
        space();
        string();
        space();
        if (text[i] !== ':') fail("':' after a property name");
        i++;
        value();
        space();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return; }
        fail("',' or '}'");
      }
    } else if (c === '[') {
      i++;
      space();
      if (text[i] === ']') { i++; return; }
      for (;;) {
        value();
        space();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return; }
        fail("',' or ']'");
      }
    } else if (c === '"') string();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) number();
    else fail(i >= text.length ? 'more input (the document ends too early)' : 'a JSON value');
  };
  try {
    value();
    space();
    if (i < text.length) fail('the end of the document');
  } catch (error) {
    if (typeof error === 'object' && error !== null && 'offset' in error) return error as { offset: number; expected: string };
    throw error;
  }
  return { offset: text.length, expected: 'valid JSON' };
}
