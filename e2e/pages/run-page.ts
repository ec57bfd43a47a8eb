import type { Locator, Page } from "@playwright/test";

// Page object for a run: header, plan review, host × phase grid, step details and waiting lines.
export class RunPage {
  constructor(readonly page: Page) {}

  async open(clusterId: string, runId: string): Promise<void> {
    await this.page.goto(`/clusters/${clusterId}/runs/${runId}`);
  }
  get status(): Locator {
    return this.page.getByTestId("run-status");
  }
  get progress(): Locator {
    return this.page.getByTestId("run-progress");
  }
  get start(): Locator {
    return this.page.getByTestId("run-start");
  }
  get live(): Locator {
    return this.page.getByTestId("run-live");
  }
  get eta(): Locator {
    return this.page.getByTestId("run-eta");
  }
  get decision(): Locator {
    return this.page.getByTestId("run-decision");
  }
  get acceptWarnings(): Locator {
    return this.page.getByTestId("run-accept-warnings");
  }
  get summary(): Locator {
    return this.page.getByTestId("run-summary");
  }
  /** The planned file's content (or the line saying a secret stays hidden), opened with its View button. */
  async viewPlannedFile(stepKey: string, path: string): Promise<Locator> {
    await this.planToggle(stepKey).click();
    await this.page.getByTestId(`view-file-${path}`).click();
    return this.page.getByTestId(`file-content-${path}`);
  }
  planPhases(): Locator {
    return this.page.locator('[data-testid^="plan-phase-"]');
  }
  planStep(key: string): Locator {
    return this.page.getByTestId(`plan-step-${key}`);
  }
  /** The button that opens (and closes) a planned step. */
  planToggle(key: string): Locator {
    return this.page.getByTestId(`plan-toggle-${key}`);
  }
  get scroller(): Locator {
    return this.page.getByTestId("grid-scroll");
  }
  rows(): Locator {
    return this.page.locator('[data-testid^="grid-row-"]');
  }
  row(id: string): Locator {
    return this.page.getByTestId(`grid-row-${id}`);
  }
  cell(row: string, phase: string): Locator {
    return this.page.getByTestId(`cell-${row}-${phase}`);
  }
  get details(): Locator {
    return this.page.getByTestId("step-details");
  }
  get waiting(): Locator {
    return this.page.getByTestId("waiting-lines");
  }
  async filter(by: "role" | "state", value: string): Promise<void> {
    await this.page.getByTestId(`grid-filter-${by}`).selectOption(value);
  }
  /** The log viewer's box of a step's output (its lines are `outputLines`). */
  stepOutput(key: string): Locator {
    return this.page.getByTestId(`step-output-${key}`);
  }
  /** The drawn lines of a step's output, each one element (line numbers are not in their text). */
  outputLines(key: string): Locator {
    return this.stepOutput(key).locator("[data-line]");
  }
  outputSearch(key: string): Locator {
    return this.page.getByTestId(`step-output-search-${key}`);
  }
  outputMatches(key: string): Locator {
    return this.page.getByTestId(`step-output-matches-${key}`);
  }
  /** "12 lines", "1 of 12 lines match" … */
  outputShown(key: string): Locator {
    return this.page.getByTestId(`step-output-shown-${key}`);
  }
  noOutput(key: string): Locator {
    return this.page.getByTestId(`step-no-output-${key}`);
  }
  /** The run's id, from the page's URL. */
  get runId(): string {
    const id = /\/runs\/([^/?#]+)/.exec(this.page.url())?.[1];
    if (!id) throw new Error(`not on a run page: ${this.page.url()}`);
    return id;
  }
  /** Milliseconds since the page's navigation started (the browser's clock). */
  async sinceNavigation(): Promise<number> {
    return this.page.evaluate(() => performance.now());
  }
}
