/**
 * @module trust/kind
 * How `toolgate trust` describes one kind of file (`workspace/trusted-files.json` names the kinds): what it says that
 * trust turns on, recorded as plain data when trusted, and what changed between two versions.
 */

/** One kind's describer. Facts are plain JSON: they are stored in the trust list. */
export interface FactKind<F> {
  /** The facts of a file's text. Throws when the text cannot be read as this kind (the review says so). */
  summarize(text: string, path: string): F;
  /** One line per thing trust would turn on. */
  describe(facts: F): string[];
  /** One line per change from `before` to `after` that matters to trust; empty when none does. */
  changes(before: F, after: F): string[];
}
