/** The words of the REST_MAX_LOADED_RECORDS refusal, one text whichever layer detects it (service or driver). */
export function loadLimitMessage(limit: number): string {
  return `The relations of this answer hold more than ${limit} related records (REST_MAX_LOADED_RECORDS): load fewer or shallower relations, or ask for a smaller page.`;
}
