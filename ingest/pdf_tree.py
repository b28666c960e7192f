"""A PDF's page tree walked one page at a time, its damage recorded instead of failing the file.

pypdf's ``reader.pages`` reads every page object into a list as it is opened, and keeps each parsed page and
content stream in the reader's cache: a PDF of 20,000 pages of text held 75 MB of them to the end. ``PageTree``
gives the pages one at a time, in order, with what they inherit from the branches above them, and ``release``
lets a page's own objects go once its text is read, so memory stays what one page needs.

A branch that lists itself, or a branch above it, among its kids made pypdf refuse the whole file ('Detected
cyclic page references'); such a kid is left out here, and what was left out is said (``left_out``). So are the
entries past pypdf's bound of a page tree's entries (``page_tree_maximum_entries``), where it refused the file.
"""
from __future__ import annotations

from typing import Iterator

from pypdf import PageObject, PdfReader
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, NameObject

_INHERITED = ("/Resources", "/MediaBox", "/CropBox", "/Rotate")
MAX_DEPTH = 100  # branches inside branches: pypdf's own bound (page_tree_maximum_depth)
MAX_ENTRIES = 100_000  # kids listed in the whole tree: pypdf's own bound (page_tree_maximum_entries)


class PageTree:
    """The pages of ``reader``'s page tree, one at a time (``pages``); after the walk, ``numbers`` maps a page's
    object number to its 0-based place (for the outline's destinations) and ``left_out`` says what of a damaged
    tree was not followed."""

    def __init__(self, reader: PdfReader) -> None:
        self.reader = reader
        self.numbers: dict[int, int] = {}
        self.left_out: list[str] = []
        self.count = 0  # pages given so far

    def check(self) -> None:
        """An error when the tree has no root to walk from (the file's page list is lost)."""
        self._root()

    def _root(self) -> tuple[IndirectObject | None, DictionaryObject]:
        root = self.reader.trailer["/Root"].get_object().raw_get("/Pages")
        node = root.get_object()
        if not isinstance(node, DictionaryObject):
            raise ValueError("Invalid object in /Pages")
        return (root if isinstance(root, IndirectObject) else None), node

    def pages(self) -> Iterator[PageObject]:
        root_ref, root = self._root()
        entries = 0
        # each frame: the branch's key, what its pages inherit, an iterator over its kids
        stack = [(_key(root_ref, root), _inherits({}, root), iter(_kids(root)))]
        ancestors = {stack[0][0]}
        while stack:
            key, inherit, kids = stack[-1]
            kid = next(kids, None)
            if kid is None:
                stack.pop()
                ancestors.discard(key)
                continue
            try:
                node = kid.get_object()
            except Exception as exc:  # noqa: BLE001 - a damaged entry: the pages around it are read
                self.left_out.append(f"an entry that cannot be read ({str(exc)[:80]})")
                continue
            if not isinstance(node, DictionaryObject) or not node:
                continue
            entries += 1
            if entries > MAX_ENTRIES:
                self.left_out.append(f"the entries of its page tree past {MAX_ENTRIES:,} (pypdf's bound)")
                return
            node_key = _key(kid if isinstance(kid, IndirectObject) else None, node)
            if node_key in ancestors:
                self.left_out.append(f"a branch that lists one above it among its kids (object {node_key[1]})"
                                     if node_key[0] == "ref" else "a branch that lists one above it")
                continue
            if node.get("/Type") == "/Pages" or ("/Kids" in node and node.get("/Type") != "/Page"):
                if len(stack) >= MAX_DEPTH:
                    self.left_out.append(f"branches nested deeper than {MAX_DEPTH}")
                    continue
                stack.append((node_key, _inherits(inherit, node), iter(_kids(node))))
                ancestors.add(node_key)
                continue
            yield self._page(kid, node, inherit)

    def _page(self, kid, node: DictionaryObject, inherit: dict) -> PageObject:
        ref = kid if isinstance(kid, IndirectObject) else None
        page = PageObject(self.reader, ref)
        page.update(node)
        for name, value in inherit.items():
            if name not in page:
                page[NameObject(name)] = value
        if ref is not None:
            self.numbers.setdefault(ref.idnum, self.count)
        self.count += 1
        return page

    def number_of(self, destination) -> int | None:
        """The 0-based place of the page an outline entry's destination names (its object or object number)."""
        target = getattr(destination, "page", None)
        if isinstance(target, IndirectObject):
            return self.numbers.get(target.idnum)
        if isinstance(target, int):
            return self.numbers.get(target)
        return None

    def release(self, page: PageObject) -> None:
        """Let go of the page's own object and its content streams from the reader's cache: pypdf keeps every
        object it has parsed while the reader lives. Fonts and forms shared by other pages stay."""
        cache = getattr(self.reader, "resolved_objects", None)
        if cache is None:
            return
        refs = [page.indirect_reference]
        contents = page.get("/Contents") if hasattr(page, "get") else None
        if isinstance(contents, IndirectObject):
            refs.append(contents)
            contents = _get(contents)
        if isinstance(contents, ArrayObject):
            refs += [ref for ref in contents if isinstance(ref, IndirectObject)]
        for ref in refs:
            if isinstance(ref, IndirectObject):
                cache.pop((ref.generation, ref.idnum), None)


def _get(ref: IndirectObject):
    try:
        return ref.get_object()
    except Exception:  # noqa: BLE001 - a stream that cannot be read: nothing of it is cached
        return None


def _key(ref: IndirectObject | None, node: DictionaryObject) -> tuple:
    return ("ref", ref.idnum) if ref is not None else ("id", id(node))


def _kids(node: DictionaryObject) -> list:
    kids = node.get("/Kids")
    kids = kids.get_object() if kids is not None else None
    return list(kids) if isinstance(kids, ArrayObject) else []


def _inherits(inherit: dict, node: DictionaryObject) -> dict:
    own = {name: node.raw_get(name) for name in _INHERITED if name in node}
    return {**inherit, **own} if own else inherit


def page_shape(page: PageObject) -> tuple[float, float, bool] | None:
    """(width, height, turned a quarter) of the page as shown, for telling a slide deck; None when unreadable."""
    try:
        return float(page.mediabox.width), float(page.mediabox.height), (page.rotation or 0) % 180 == 90
    except Exception:  # noqa: BLE001 - a page without a readable box does not count
        return None
