/** Where a CLI command writes (the process's streams, or a test's buffers). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}
