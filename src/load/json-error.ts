import { loadJsonc } from '../jsonc.js';

/** What each of jsonc-parser's error codes means to someone fixing the file. */
const PROBLEMS: Record<string, string> = {
  InvalidSymbol: 'expected a JSON value',
  InvalidNumberFormat: 'expected a valid number',
  PropertyNameExpected: 'expected a double-quoted property name',
  ValueExpected: 'expected a JSON value',
  ColonExpected: "expected ':' after a property name",
  CommaExpected: "expected ',' or a closing bracket",
  CloseBraceExpected: "expected ',' or '}'",
  CloseBracketExpected: "expected ',' or ']'",
  EndOfFileExpected: 'expected the end of the document',
  InvalidCommentToken: 'expected no comment (JSON has none)',
  UnexpectedEndOfComment: 'expected the end of a comment',
  UnexpectedEndOfString: 'expected the string to close on the line it starts',
  UnexpectedEndOfNumber: 'expected a digit',
  InvalidUnicode: 'expected four hex digits after \\u',
  InvalidEscapeCharacter: 'expected a valid escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)',
  InvalidCharacter: 'expected no control character inside a string',
};

/**
 * Where JSON text first goes wrong, and what is wrong there. Runs only after `JSON.parse` failed, whose
 * messages do not always give a position.
 */
export function locateJsonError(text: string): { offset: number; problem: string } {
  const { visit, printParseErrorCode } = loadJsonc();
  let found: { offset: number; problem: string } | undefined;
  const stop = new Error('first error found');
  try {
    visit(text, {
      onError: (code, offset) => {
        found = { offset, problem: PROBLEMS[printParseErrorCode(code)] ?? 'expected valid JSON' };
        throw stop;
      },
    }, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  } catch (error) {
    if (error !== stop) throw error;
  }
  return found ?? { offset: text.length, problem: 'expected valid JSON' };
}
