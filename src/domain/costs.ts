/** USD amounts, split like the token counts. */
export interface Costs {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}
