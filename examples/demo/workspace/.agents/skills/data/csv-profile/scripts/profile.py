#!/usr/bin/env python3
"""Prints one line per CSV column: inferred type, empty cells, distinct values, an example."""
import csv
import sys


def kind(values):
    def all_parse(parse):
        try:
            for value in values:
                parse(value)
            return True
        except ValueError:
            return False

    if not values:
        return "empty"
    if all_parse(int):
        return "integer"
    if all_parse(float):
        return "number"
    return "text"


def main(path):
    with open(path, newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    print(f"{path}: {len(rows)} rows")
    for column in rows[0].keys() if rows else []:
        cells = [row[column] or "" for row in rows]
        filled = [cell for cell in cells if cell.strip()]
        example = filled[0] if filled else ""
        print(f"{column:<24} {kind(filled):<8} empty={len(cells) - len(filled):<6} "
              f"distinct={len(set(filled)):<6} e.g. {example!r}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: profile.py FILE.csv")
    main(sys.argv[1])
