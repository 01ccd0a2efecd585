/** One generated file, in memory: the library returns these, and only the command line writes them. */
export interface GeneratedFile {
  /** Path relative to the output directory, with `/` separators. */
  readonly path: string;
  readonly content: string;
}

/**
 * A file kept in the parts it was written in, joined only when its `content` is read. Writing it never makes its text
 * whole: MS Graph's files come to 48 MB, and a string that size is fresh memory to fill, once more than the parts.
 * No part ends inside a surrogate pair (each is written out as UTF-8 on its own).
 */
export class PartedFile implements GeneratedFile {
  #content: string | undefined;

  constructor(readonly path: string, readonly parts: readonly string[]) {}

  get content(): string {
    return (this.#content ??= this.parts.join(''));
  }
}

/** The text of a file, in the parts it was made of (a whole string is one part). */
export const partsOf = (file: GeneratedFile): readonly string[] => (file instanceof PartedFile ? file.parts : [file.content]);

/** The same file at another path (a spread would drop a {@link PartedFile}'s content, which it works out when read). */
export const movedTo = (file: GeneratedFile, path: string): GeneratedFile =>
  file instanceof PartedFile ? new PartedFile(path, file.parts) : { path, content: file.content };
