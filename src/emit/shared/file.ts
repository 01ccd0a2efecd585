/** One generated file, in memory: the library returns these, and only the command line writes them. */
export interface GeneratedFile {
  /** Path relative to the output directory, with `/` separators. */
  readonly path: string;
  readonly content: string;
}
