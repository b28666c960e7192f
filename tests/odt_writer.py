"""A zipped OpenDocument text (.odt) made from its content.xml, for the tests and bench/odt_read.py: the parts
ingest.odt reads, a mimetype and content.xml, nothing else."""
from __future__ import annotations

import io
import zipfile


def zipped_odt(content: str | bytes) -> bytes:
    """The bytes of an .odt whose content.xml is ``content``."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        package.writestr("content.xml", content)
    return out.getvalue()
