/**
 * Shortening text for prompts and summaries by characters (code points, so a
 * CJK character or an emoji is never cut in half), with an ellipsis.
 */

/** `text` if it has at most `limit` characters, else its first `limit` characters and "…". */
export function truncateText(text: string, limit: number): string {
  const characters = [...text];
  return characters.length <= limit ? text : `${characters.slice(0, limit).join('')}…`;
}
