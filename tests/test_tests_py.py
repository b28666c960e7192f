"""A file named ``tests.py`` (a Django app's tests, a crate's ``tests.rs``) is a test file: read in any case, a name
ending in 'test' or 'tests' was a test's, and the capital that now tells 'UserTest.java' from 'shortest.py' left the
whole name 'tests.py' out, so a question about a Django view ranked its app's tests.py among the code
(``reordering.code_before_tests``)."""
from __future__ import annotations

import pytest

from search.query.symbols import test_file as is_test_file


@pytest.mark.parametrize("path, test", [
    ("polls/tests.py", True), ("tests.py", True), ("src/tests.rs", True), ("app/test.py", True),
    ("graph/shortest.py", False), ("latest.py", False), ("polls/views.py", False), ("contests.py", False)])
def test_a_file_named_tests_is_a_test_file(path, test):
    assert is_test_file(path) is test
