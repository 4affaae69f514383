import { ApiError } from './api-error';

/** 422 with every failing field: `{message: "<first> (and N more errors)", errors: {field: [messages]}}`. */
export class ValidationError extends ApiError {
  constructor(readonly errors: Record<string, string[]>) {
    super('validation_error', summarize(errors));
  }

  override body(): Record<string, unknown> {
    return { errors: this.errors };
  }
}

function summarize(errors: Record<string, string[]>): string {
  const messages = Object.values(errors).flat();
  if (messages.length === 0) return 'The given data was invalid.';
  const rest = messages.length - 1;
  // The binding form is "(and N more errors)" for every N (shared/spec/decisions.md 24).
  return rest > 0 ? `${messages[0]} (and ${rest} more errors)` : messages[0];
}

/** Decision 77: 422 `unknown_field`, in the validation shape: each key of a write body that names nothing, by path. */
export class UnknownFieldsError extends ApiError {
  constructor(readonly errors: Record<string, string[]>) {
    super('unknown_field', summarize(errors));
  }

  override body(): Record<string, unknown> {
    return { errors: this.errors };
  }
}
