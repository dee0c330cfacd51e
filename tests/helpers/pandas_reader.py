# Reads a TurnLab export the way a researcher would, with pandas' defaults
# (pd.read_csv / pd.read_json(lines=True)) or as docs/storage.md says to keep text as written,
# and prints what it read as JSON for tests/store/export-pandas.test.ts: the columns, each
# column's dtype, and the values (NaN as null, a date as {datetime: ISO 8601}), so the test
# compares pandas' view with the store's.
import json
import math
import sys

import pandas as pd


def plain(value):
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, pd.Timestamp):
        return {"datetime": value.isoformat()}
    if hasattr(value, "item"):
        return plain(value.item())
    return value


def main():
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "csv":
        frame = pd.read_csv(path)
    elif kind == "csv-text":
        # What docs/storage.md tells a reader of replies: only an empty field is missing.
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    else:
        frame = pd.read_json(path, lines=True)
    json.dump(
        {
            "columns": list(frame.columns),
            "dtypes": {c: str(t) for c, t in frame.dtypes.items()},
            "rows": [[plain(v) for v in row] for row in frame.itertuples(index=False)],
        },
        sys.stdout,
    )


main()
