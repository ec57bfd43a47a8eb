import type { Locator, Page } from "@playwright/test";

// Page object for one host: state, facts, last failure and the runs that worked on it.
export class HostPage {
  constructor(readonly page: Page) {}

  async open(clusterId: string, host: string): Promise<void> {
    await this.page.goto(`/clusters/${clusterId}/hosts/${host}`);
  }
  get state(): Locator {
    return this.page.getByTestId("host-state");
  }
  get facts(): Locator {
    return this.page.getByTestId("host-facts");
  }
  get factsAsOf(): Locator {
    return this.page.getByTestId("host-facts-as-of");
  }
  get lastFailure(): Locator {
    return this.page.getByTestId("host-last-failure");
  }
  get failedStepLink(): Locator {
    return this.page.getByTestId("host-failed-step-link");
  }
  run(runId: string): Locator {
    return this.page.getByTestId(`host-run-${runId}`);
  }
}
