import { describe, expect, test } from "vitest";
import { nextCellPosition } from "./host-grid";

// A cluster row with only phase 2 (pivot), then three hosts with phases 0–1 and a join in phase 3.
const c = {} as never;
const rows = [{ cells: [null, null, c, null] }, { cells: [c, c, null, null] }, { cells: [c, c, null, c] }, { cells: [c, c, null, c] }];

describe("arrow keys in the grid", () => {
  test("left and right move along the row, skipping phases without a step, and stop at its ends", () => {
    expect(nextCellPosition(rows, { row: 2, col: 1 }, "ArrowRight")).toEqual({ row: 2, col: 3 });
    expect(nextCellPosition(rows, { row: 2, col: 3 }, "ArrowRight")).toBeNull();
    expect(nextCellPosition(rows, { row: 2, col: 3 }, "ArrowLeft")).toEqual({ row: 2, col: 1 });
    expect(nextCellPosition(rows, { row: 2, col: 0 }, "ArrowLeft")).toBeNull();
  });

  test("up and down go to the nearest cell with a step in the next row", () => {
    expect(nextCellPosition(rows, { row: 0, col: 2 }, "ArrowDown")).toEqual({ row: 1, col: 1 });
    expect(nextCellPosition(rows, { row: 1, col: 1 }, "ArrowUp")).toEqual({ row: 0, col: 2 });
    expect(nextCellPosition(rows, { row: 2, col: 3 }, "ArrowDown")).toEqual({ row: 3, col: 3 });
    expect(nextCellPosition(rows, { row: 3, col: 3 }, "ArrowDown")).toBeNull();
    expect(nextCellPosition(rows, { row: 0, col: 2 }, "ArrowUp")).toBeNull();
  });

  test("Home and End: the row's first and last cell; page keys jump, stopping at the last row", () => {
    expect(nextCellPosition(rows, { row: 2, col: 1 }, "Home")).toEqual({ row: 2, col: 0 });
    expect(nextCellPosition(rows, { row: 2, col: 0 }, "End")).toEqual({ row: 2, col: 3 });
    expect(nextCellPosition(rows, { row: 1, col: 0 }, "PageDown", 2)).toEqual({ row: 3, col: 0 });
    expect(nextCellPosition(rows, { row: 1, col: 0 }, "PageDown", 10)).toEqual({ row: 3, col: 0 });
    expect(nextCellPosition(rows, { row: 3, col: 0 }, "PageUp", 10)).toEqual({ row: 0, col: 2 });
  });

  test("other keys do nothing", () => {
    expect(nextCellPosition(rows, { row: 1, col: 0 }, "a")).toBeNull();
  });
});
