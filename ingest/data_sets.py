"""A JSON file that is a data set, not code or configuration: a test fixture of 3,000 invoices, a recorded API
answer, GeoJSON's features. Read by lines as code, each was a passage per few records (a Django fixture of 3,000
invoices: 1,149 passages to embed, more than the rest of its service), and each of them matched a search for the
record's field names ('due_date', 'currency') before the model and the migration that define them. Such a file is
indexed as its first lines only, as a numeric CSV table is (ingest.table): what a search finds it by is its field
names, and those are in its first records. Configuration, schemas, OpenAPI documents and translations are objects
of named parts, not arrays of records, and stay read whole."""
from __future__ import annotations

import json

DATA_SET_BYTES = 64 * 1024  # a smaller file costs a few passages at most: read whole, not parsed to tell
DATA_SET_RECORDS = 100  # an array of this many objects or more is a table of records
DATA_SET_LINES = 30  # of a data set's first lines indexed: its first records, their field names


def data_set_records(suffix: str, text: str) -> int:
    """The number of records of a JSON data set (an array of DATA_SET_RECORDS objects or more, the whole document
    or a value of its top object), or 0 for any other text, a JSON file under DATA_SET_BYTES or one that does not
    parse (read by lines, as before)."""
    if suffix != ".json" or len(text) < DATA_SET_BYTES:
        return 0
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return 0
    arrays = [value] if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else []
    return max((len(array) for array in arrays if isinstance(array, list) and len(array) >= DATA_SET_RECORDS
                and all(isinstance(item, dict) for item in array)), default=0)
