#!/usr/bin/env python3
"""Checks docs/library/capabilities.md against the capability inventory.

Every `- [ ]` item of sections 1-9 of the inventory must have one row, in order, whose
item text starts like the item and whose API column is not empty and never says
"internal only".

  python3 scripts/check_capability_table.py [../shared/spec/capabilities.md] \
      [docs/library/capabilities.md]
"""
import re
import sys


def spec_items(path):
    """(section, text) of every checklist item in sections 1-9."""
    items, section = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## Part B"):
                break
            m = re.match(r"^#{2,4} (\d+(?:\.\d+)*)\.? ", line)
            if m:
                section = m.group(1)
                if int(section.split(".")[0]) > 9:
                    break
                continue
            if line.startswith("- [ ] "):
                items.append((section, line[6:].strip()))
    return items


def table_rows(path):
    """(number, section, item, api) of every numbered row."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\| (\d+) \| §([\d.]+) \| (.*) \| (.*) \|$", line.rstrip("\n"))
            if m:
                rows.append((int(m.group(1)), m.group(2), m.group(3), m.group(4)))
    return rows


def norm(text):
    """Text without the seed tags ([M], [A] ...) and with single spaces."""
    return re.sub(r"\s+", " ", re.sub(r"\[[A-Z]\]", " ", text)).strip()


def main():
    spec = sys.argv[1] if len(sys.argv) > 1 else "../shared/spec/capabilities.md"
    table = sys.argv[2] if len(sys.argv) > 2 else "docs/library/capabilities.md"
    items, rows = spec_items(spec), table_rows(table)
    errors = []
    if len(items) != len(rows):
        errors.append(f"{len(items)} checklist items but {len(rows)} table rows")
    for i, ((sec, text), row) in enumerate(zip(items, rows)):
        num, rsec, ritem, api = row
        head = norm(text.replace("|", "\\|"))[:25]
        if num != i + 1 or rsec != sec or not norm(ritem).startswith(head):
            errors.append(f"row {num}: expected item {i + 1} (§{sec}) '{head}...'")
        if not api.strip() or "internal only" in api.lower():
            errors.append(f"row {num}: no public API given")
    for e in errors[:10]:
        print(f"check_capability_table: {e}", file=sys.stderr)
    if len(errors) > 10:
        print(f"check_capability_table: ... {len(errors) - 10} more", file=sys.stderr)
    if not errors:
        print(f"check_capability_table: {len(rows)} items, all covered")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
