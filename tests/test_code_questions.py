"""A developer's questions about code: Cython read by its definitions."""
from __future__ import annotations

from ingest.code import parse_code
from ingest.kinds import kind_of

PYX = '''# cython: language_level=3
import re

cdef object _RE_HREF = re.compile(r'href="([^"]*)"')

cdef class XSLTAccessControl:
    """Access control for XSLT:
reads and writes of files and the network.
    """
    cdef dict _prefs

    def __init__(self, read_file=True):
        self._prefs = {"read_file": read_file}

    # the options as a dict
    @property
    def options(self):
        return dict(self._prefs)

cdef inline int _walk(tree.xmlNode* c_node,
                      int depth) noexcept nogil:
    return depth + 1

cdef extern from "libxml/tree.h":
    ctypedef struct xmlNode:
        int type
    xmlNode* xmlDocGetRootElement(void* doc) nogil

def parse(text):
    return _walk(NULL, 0)
'''


def test_cython_is_read_by_its_definitions():
    """tree-sitter-languages has no Cython grammar: .pyx, .pxd and .pxi files were not read at all, and Python's
    grammar reads lxml's parser.pxi as one error. Their definitions are found by indentation."""
    assert kind_of("lxml/etree.pyx") == kind_of("lxml/parser.pxi") == kind_of("includes/tree.pxd") == "code"
    doc = parse_code("lxml/xslt.pyx", PYX)
    assert "\n".join(s.text for s in doc.sections) == PYX.rstrip("\n")
    owners = {" > ".join(s.heading_path): (s.start_line, s.end_line) for s in doc.sections}
    assert owners["xslt > XSLTAccessControl"] == (6, 11)  # the docstring's line at column 0 is still the class's
    assert owners["xslt > XSLTAccessControl > __init__"] == (12, 14)
    assert owners["xslt > XSLTAccessControl > options"] == (15, 19)  # its comment and decorator above it
    assert owners["xslt > _walk"] == (20, 22)  # a C function whose signature runs over two lines
    assert owners["xslt > xmlNode"] == (25, 26)  # a struct declared in an extern block; the block is no definition
    assert owners["xslt > parse"][0] == 29
    assert "_RE_HREF" not in doc.meta["symbols"] and doc.meta["language"] == "cython"
    assert "fallback" not in doc.meta
