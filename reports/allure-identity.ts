import type { Label } from 'allure-js-commons';

/** What identifies a result in Allure; both the report writer and the vitest entry point use it. */
export interface AllureIdentity {
  name: string;
  fullName: string;
  historyId: string;
  testCaseId: string;
  description: string;
  parameters: Array<{ name: string; value: string }>;
  labels: Label[];
}
