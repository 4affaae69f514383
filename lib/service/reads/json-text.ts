/** An answer already JSON text (built by the database, issue 36): sent and cached as it is. */
export class JsonText {
  constructor(readonly text: string) {}

  /** Null stays null: the caller then takes the usual path. */
  static of(text: string | null): JsonText | null {
    return text === null ? null : new JsonText(text);
  }
}
