import { expect, type Locator, type Page } from "@playwright/test";

// Page object for the cluster wizard: steps, fields by test id, and field errors.
export class WizardPage {
  constructor(readonly page: Page) {}

  field(id: string): Locator {
    return this.page.getByTestId(`field-${id}`);
  }
  error(id: string): Locator {
    return this.page.getByTestId(`error-${id}`);
  }
  async next(): Promise<void> {
    await this.page.getByTestId("wizard-next").click();
  }
  async expectStep(id: string): Promise<void> {
    await expect(this.page.getByTestId(`step-${id}`)).toHaveClass(/bg-indigo-600/);
  }
  async pasteHosts(lines: string[]): Promise<void> {
    if (!(await this.page.getByTestId("paste-hosts").isVisible())) await this.page.getByTestId("paste-toggle").click();
    await this.page.getByTestId("paste-hosts").fill(lines.join("\n"));
    await this.page.getByTestId("paste-add").click();
  }
  /** A field of the i-th host row (name, address, port, user, credential, labels, bastion). */
  host(i: number, field: string): Locator {
    return this.page.getByTestId(`host-${i}-${field}`);
  }
  review(label: string): Locator {
    return this.page.getByTestId(`review-${label}`);
  }
  async setPrivateKey(pem: string): Promise<void> {
    await this.page.locator("#cred-0-key").fill(pem);
  }
  async save(): Promise<void> {
    await this.page.getByTestId("wizard-save").click();
  }
}
