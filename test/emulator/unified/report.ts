/** Per-folder tallies of the spec suite, printed at the end of the run. */
export interface FolderTally {
  runnable: number;
  passed: number;
  failed: number;
  skipped: Map<string, number>;
}

export class Tally {
  readonly folders = new Map<string, FolderTally>();

  private of(folder: string): FolderTally {
    let t = this.folders.get(folder);
    if (!t) {
      t = { runnable: 0, passed: 0, failed: 0, skipped: new Map() };
      this.folders.set(folder, t);
    }
    return t;
  }

  skip(folder: string, reason: string): void {
    const t = this.of(folder);
    t.skipped.set(reason, (t.skipped.get(reason) ?? 0) + 1);
  }

  result(folder: string, passed: boolean): void {
    const t = this.of(folder);
    t.runnable++;
    if (passed) t.passed++;
    else t.failed++;
  }

  render(): string {
    const pct = (p: number, r: number): string => (r ? `${((100 * p) / r).toFixed(1)}%` : '-');
    const lines = ['', 'MongoDB unified spec tests', 'folder | runnable | passed | failed | skipped | pass rate', '--- | --- | --- | --- | --- | ---'];
    const total: FolderTally = { runnable: 0, passed: 0, failed: 0, skipped: new Map() };
    for (const [folder, t] of this.folders) {
      const skipped = [...t.skipped.values()].reduce((a, b) => a + b, 0);
      lines.push(`${folder} | ${t.runnable} | ${t.passed} | ${t.failed} | ${skipped} | ${pct(t.passed, t.runnable)}`);
      total.runnable += t.runnable;
      total.passed += t.passed;
      total.failed += t.failed;
      for (const [r, n] of t.skipped) total.skipped.set(r, (total.skipped.get(r) ?? 0) + n);
    }
    const skippedTotal = [...total.skipped.values()].reduce((a, b) => a + b, 0);
    lines.push(`total | ${total.runnable} | ${total.passed} | ${total.failed} | ${skippedTotal} | ${pct(total.passed, total.runnable)}`, '', 'skipped, by reason (per folder):');
    for (const [folder, t] of this.folders) {
      for (const [reason, n] of [...t.skipped].sort((a, b) => b[1] - a[1])) lines.push(`  ${folder}: ${n} x ${reason}`);
    }
    return lines.join('\n');
  }
}
