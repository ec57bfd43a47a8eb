import type { Locator, Page } from "@playwright/test";

// Page object for the cluster list (the fleet): search, filters, a row per cluster with its health.
export class FleetPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto("/clusters");
  }
  get table(): Locator {
    return this.page.getByTestId("cluster-table");
  }
  rows(): Locator {
    return this.page.locator('[data-testid^="cluster-row-"]');
  }
  row(name: string): Locator {
    return this.page.getByTestId(`cluster-row-${name}`);
  }
  get count(): Locator {
    return this.page.getByTestId("fleet-count");
  }
  async search(text: string): Promise<void> {
    await this.page.getByTestId("fleet-search").fill(text);
  }
  async filterState(value: string): Promise<void> {
    await this.page.getByTestId("fleet-filter-state").selectOption(value);
  }
  async filterVersion(value: string): Promise<void> {
    await this.page.getByTestId("fleet-filter-version").selectOption(value);
  }
}
