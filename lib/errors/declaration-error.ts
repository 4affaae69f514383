/** A resource declaration that cannot work, found at start-up: the message names the resource and key. */
export class DeclarationError extends Error {
  constructor(resource: string, key: string, problem: string) {
    super(`Resource ${resource}: ${key}: ${problem}`);
    this.name = 'DeclarationError';
  }
}
