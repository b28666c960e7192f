"""Tests for ingest.code: definition sections over real-looking code in 15 languages."""
from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.code import LANGUAGES, parse_code
from ingest.document import Skip

# One realistic file per language: a class (or struct/impl/module) with
# methods, doc comments or docstrings, decorators/attributes and a free function.
SOURCES = {
    "service.py": '''\
"""Shopping cart service."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

log = logging.getLogger(__name__)
MAX_ITEMS = 100


# A cart belongs to one customer.
@dataclass
class Cart:
    """Items a customer is about to buy."""

    owner: str
    items: list[str] = field(default_factory=list)

    def add_item(self, item: str) -> None:
        """Add one item, refusing more than MAX_ITEMS."""
        if len(self.items) >= MAX_ITEMS:
            raise ValueError("cart is full")
        self.items.append(item)

    # Totals are computed on demand.
    @property
    def total(self) -> int:
        def price(item: str) -> int:
            return len(item)
        return sum(price(i) for i in self.items)


def checkout(cart: Cart) -> int:
    """Empty the cart and return what it cost."""
    amount = cart.total
    cart.items.clear()
    log.info("checkout %s: %d", cart.owner, amount)
    return amount


if __name__ == "__main__":
    print(checkout(Cart("demo")))
''',
    "cart.jsx": '''\
import React from "react";
import { formatPrice } from "./format.js";

const TAX_RATE = 0.2;

/**
 * Keeps the items a customer is about to buy.
 */
export class Cart {
  constructor(owner) {
    this.owner = owner;
    this.items = [];
  }

  // Adds one item; duplicates are allowed.
  addItem(item) {
    this.items.push(item);
    return this;
  }

  get total() {
    return this.items.reduce((sum, item) => sum + item.price, 0);
  }
}

/** Renders the cart total. */
export function CartTotal({ cart }) {
  return <span className="total">{formatPrice(cart.total * (1 + TAX_RATE))}</span>;
}

export const emptyCart = (owner) => new Cart(owner);
''',
    "store.ts": '''\
import { Injectable } from "@angular/core";

export interface Item {
  sku: string;
  price: number;
}

/** Where carts are kept between requests. */
@Injectable({ providedIn: "root" })
export class CartStore {
  private carts = new Map<string, Item[]>();

  /** The cart of one customer, created on first use. */
  get(owner: string): Item[] {
    if (!this.carts.has(owner)) {
      this.carts.set(owner, []);
    }
    return this.carts.get(owner)!;
  }

  clear(owner: string): void {
    this.carts.delete(owner);
  }
}

// Sum of the item prices in cents.
export function total(items: Item[]): number {
  return items.reduce((sum, item) => sum + item.price, 0);
}
''',
    "Panel.tsx": '''\
import React, { useState } from "react";

type Props = { title: string };

// A collapsible panel.
export function Panel({ title }: Props) {
  const [open, setOpen] = useState(false);
  return <div onClick={() => setOpen(!open)}>{title}</div>;
}

export class Legacy extends React.Component<Props> {
  render() {
    return <h1>{this.props.title}</h1>;
  }
}
''',
    "cart.go": '''\
// Package shop implements a shopping cart.
package shop

import (
	"errors"
	"fmt"
)

// MaxItems is the most a cart can hold.
const MaxItems = 100

// Cart holds the items of one customer.
type Cart struct {
	Owner string
	Items []string
}

// AddItem appends an item, failing when the cart is full.
func (c *Cart) AddItem(item string) error {
	if len(c.Items) >= MaxItems {
		return errors.New("cart is full")
	}
	c.Items = append(c.Items, item)
	return nil
}

func (c Cart) String() string {
	return fmt.Sprintf("%s: %d items", c.Owner, len(c.Items))
}

// NewCart returns an empty cart.
func NewCart(owner string) *Cart {
	return &Cart{Owner: owner}
}
''',
    "cart.rs": '''\
use std::fmt;

/// Items a customer is about to buy.
#[derive(Debug, Default)]
pub struct Cart {
    owner: String,
    items: Vec<String>,
}

impl Cart {
    /// Creates an empty cart.
    pub fn new(owner: &str) -> Self {
        Cart { owner: owner.to_string(), items: Vec::new() }
    }

    // Adds one item.
    pub fn add_item(&mut self, item: &str) {
        self.items.push(item.to_string());
    }
}

impl fmt::Display for Cart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} items", self.owner, self.items.len())
    }
}

/// Total length of all item names.
pub fn total(cart: &Cart) -> usize {
    cart.items.iter().map(|i| i.len()).sum()
}
''',
    "Cart.java": '''\
package shop;

import java.util.ArrayList;
import java.util.List;

/**
 * Items a customer is about to buy.
 */
public class Cart {
    private static final int MAX_ITEMS = 100;
    private final List<String> items = new ArrayList<>();

    public Cart(String owner) {
        this.owner = owner;
    }

    /** Adds one item, refusing more than MAX_ITEMS. */
    @Deprecated
    public void addItem(String item) {
        if (items.size() >= MAX_ITEMS) {
            throw new IllegalStateException("cart is full");
        }
        items.add(item);
    }

    private final String owner;

    // Sum of the item name lengths.
    static int total(Cart cart) {
        return cart.items.stream().mapToInt(String::length).sum();
    }
}
''',
    "cart.c": '''\
#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS 100

/* Items a customer is about to buy. */
struct cart {
    const char *owner;
    size_t count;
    const char *items[MAX_ITEMS];
};

/*
 * Adds one item; returns -1 when the cart is full.
 */
int cart_add(struct cart *c, const char *item)
{
    if (c->count >= MAX_ITEMS)
        return -1;
    c->items[c->count++] = item;
    return 0;
}

// Total length of all item names.
static size_t cart_total(const struct cart *c)
{
    size_t sum = 0;
    for (size_t i = 0; i < c->count; i++)
        sum += strlen(c->items[i]);
    return sum;
}
''',
    "cart.cpp": '''\
#include <string>
#include <vector>

namespace shop {

// Items a customer is about to buy.
class Cart {
public:
    explicit Cart(std::string owner) : owner_(std::move(owner)) {}

    /// Adds one item.
    void addItem(const std::string& item) {
        items_.push_back(item);
    }

    std::size_t total() const;

private:
    std::string owner_;
    std::vector<std::string> items_;
};

// Sum of the item name lengths.
std::size_t Cart::total() const {
    std::size_t sum = 0;
    for (const auto& item : items_) sum += item.size();
    return sum;
}

}  // namespace shop
''',
    "Cart.cs": '''\
using System.Collections.Generic;

namespace Shop
{
    /// <summary>Items a customer is about to buy.</summary>
    public class Cart
    {
        private readonly List<string> items = new List<string>();

        public string Owner { get; }

        public Cart(string owner)
        {
            Owner = owner;
        }

        /// <summary>Adds one item.</summary>
        [Obsolete("use Add")]
        public void AddItem(string item)
        {
            items.Add(item);
        }
    }

    public static class Pricing
    {
        // Sum of the item name lengths.
        public static int Total(IEnumerable<string> items) => items.Sum(i => i.Length);
    }
}
''',
    "cart.rb": '''\
require "json"

module Shop
  # Items a customer is about to buy.
  class Cart
    attr_reader :owner, :items

    def initialize(owner)
      @owner = owner
      @items = []
    end

    # Adds one item.
    def add_item(item)
      @items << item
      self
    end

    def self.load(json)
      new(JSON.parse(json)["owner"])
    end
  end
end

# Sum of the item name lengths.
def total(cart)
  cart.items.sum(&:length)
end
''',
    "Cart.php": '''\
<?php

declare(strict_types=1);

namespace App\\Shop;

use InvalidArgumentException;

/**
 * Items a customer is about to buy.
 */
final class Cart
{
    private const MAX_ITEMS = 100;

    /** @var string[] */
    private array $items = [];

    public function __construct(private string $owner)
    {
    }

    // Adds one item.
    #[Pure]
    public function addItem(string $item): self
    {
        if (count($this->items) >= self::MAX_ITEMS) {
            throw new InvalidArgumentException('cart is full');
        }
        $this->items[] = $item;
        return $this;
    }
}

/** Sum of the item name lengths. */
function total(Cart $cart): int
{
    return array_sum(array_map('strlen', $cart->items()));
}
''',
    "Cart.kt": '''\
package shop

import kotlin.math.min

/** Items a customer is about to buy. */
data class Cart(val owner: String) {
    private val items = mutableListOf<String>()

    // Adds one item.
    fun addItem(item: String): Cart {
        require(items.size < MAX_ITEMS) { "cart is full" }
        items.add(item)
        return this
    }

    companion object {
        const val MAX_ITEMS = 100

        fun empty(owner: String) = Cart(owner)
    }
}

/** Sum of the item name lengths. */
fun total(cart: Cart): Int = cart.owner.length
''',
    "deploy.sh": '''\
#!/usr/bin/env bash
# Deploy the shop to a host.
set -euo pipefail

HOST="${1:-localhost}"

# Print how to call this script.
usage() {
  echo "usage: $0 HOST" >&2
  exit 2
}

function deploy {
  rsync -a ./dist/ "$HOST:/srv/shop/"
}

[[ $# -le 1 ]] || usage
deploy
''',
    "Cart.swift": '''\
import Foundation

/// Items a customer is about to buy.
struct Cart {
    let owner: String
    private(set) var items: [String] = []

    // Adds one item.
    mutating func addItem(_ item: String) {
        items.append(item)
    }
}

func total(_ cart: Cart) -> Int {
    cart.items.reduce(0) { $0 + $1.count }
}
''',
}

# Expected heading paths (after the module name), in file order.
EXPECTED_PATHS = {
    "service.py": [[], ["Cart"], ["Cart", "add_item"], ["Cart", "total"], ["checkout"], []],
    "cart.jsx": [[], ["Cart"], ["Cart", "constructor"], ["Cart", "addItem"], ["Cart", "total"],
                 ["CartTotal"], ["emptyCart"]],
    "store.ts": [[], ["Item"], ["CartStore"], ["CartStore", "get"], ["CartStore", "clear"], ["total"]],
    "Panel.tsx": [[], ["Props"], ["Panel"], ["Legacy"], ["Legacy", "render"]],
    "cart.go": [[], ["Cart"], ["Cart", "AddItem"], ["Cart", "String"], ["NewCart"]],
    "cart.rs": [[], ["Cart"], ["Cart", "new"], ["Cart", "add_item"], ["Cart"], ["Cart", "fmt"],
                ["total"]],
    "Cart.java": [[], ["Cart"], ["Cart", "Cart"], ["Cart", "addItem"], ["Cart"], ["Cart", "total"]],
    "cart.c": [[], ["cart"], ["cart_add"], ["cart_total"]],
    "cart.cpp": [[], ["shop"], ["shop", "Cart"], ["shop", "Cart", "Cart"], ["shop", "Cart", "addItem"],
                 ["shop", "Cart"], ["shop", "Cart", "total"]],
    "Cart.cs": [[], ["Shop"], ["Shop", "Cart"], ["Shop", "Cart", "Owner"], ["Shop", "Cart", "Cart"],
                ["Shop", "Cart", "AddItem"], ["Shop", "Pricing"], ["Shop", "Pricing", "Total"]],
    "cart.rb": [[], ["Shop"], ["Shop", "Cart"], ["Shop", "Cart", "initialize"],
                ["Shop", "Cart", "add_item"], ["Shop", "Cart", "load"], ["total"]],
    "Cart.php": [[], ["Cart"], ["Cart", "__construct"], ["Cart", "addItem"], ["total"]],
    "Cart.kt": [[], ["Cart"], ["Cart", "addItem"], ["Cart", "Companion"],
                ["Cart", "Companion", "empty"], ["total"]],
    "deploy.sh": [[], ["usage"], ["deploy"], []],
}

# (text on a line, path of the section that must hold it): doc comments,
# docstrings, decorators and attributes stay with their definition.
BELONGS = {
    "service.py": [("# A cart belongs to one customer.", ["Cart"]), ("@dataclass", ["Cart"]),
                   ('"""Items a customer', ["Cart"]), ("owner: str", ["Cart"]),
                   ('"""Add one item', ["Cart", "add_item"]),
                   ("# Totals are computed", ["Cart", "total"]), ("@property", ["Cart", "total"]),
                   ("def price(item", ["Cart", "total"]),  # nested functions are not split
                   ('"""Empty the cart', ["checkout"]), ("MAX_ITEMS = 100", []),
                   ('if __name__ == "__main__":', [])],
    "cart.jsx": [("* Keeps the items", ["Cart"]), ("// Adds one item", ["Cart", "addItem"]),
                 ("/** Renders the cart total. */", ["CartTotal"]), ("const TAX_RATE", [])],
    "store.ts": [("/** Where carts are kept", ["CartStore"]),
                 ('@Injectable({ providedIn: "root" })', ["CartStore"]),
                 ("/** The cart of one customer", ["CartStore", "get"]),
                 ("// Sum of the item prices", ["total"]), ("sku: string;", ["Item"])],
    "Panel.tsx": [("// A collapsible panel.", ["Panel"])],
    "cart.go": [("// Cart holds the items", ["Cart"]), ("// AddItem appends", ["Cart", "AddItem"]),
                ("// NewCart returns", ["NewCart"]), ("const MaxItems = 100", []),
                ('"errors"', [])],
    "cart.rs": [("/// Items a customer", ["Cart"]), ("#[derive(Debug, Default)]", ["Cart"]),
                ("/// Creates an empty cart.", ["Cart", "new"]),
                ("// Adds one item.", ["Cart", "add_item"]),
                ("/// Total length of all item names.", ["total"])],
    "Cart.java": [("* Items a customer", ["Cart"]), ("private static final int MAX_ITEMS", ["Cart"]),
                  ("/** Adds one item", ["Cart", "addItem"]), ("@Deprecated", ["Cart", "addItem"]),
                  ("private final String owner;", ["Cart"]),
                  ("// Sum of the item name lengths.", ["Cart", "total"])],
    "cart.c": [("/* Items a customer", ["cart"]), ("* Adds one item; returns -1", ["cart_add"]),
               ("// Total length of all item names.", ["cart_total"]), ("#define MAX_ITEMS", [])],
    "cart.cpp": [("// Items a customer", ["shop", "Cart"]), ("/// Adds one item.", ["shop", "Cart", "addItem"]),
                 ("std::vector<std::string> items_;", ["shop", "Cart"]),
                 ("// Sum of the item name lengths.", ["shop", "Cart", "total"])],
    "Cart.cs": [("/// <summary>Items a customer", ["Shop", "Cart"]),
                ("public string Owner { get; }", ["Shop", "Cart", "Owner"]),
                ("/// <summary>Adds one item.", ["Shop", "Cart", "AddItem"]),
                ('[Obsolete("use Add")]', ["Shop", "Cart", "AddItem"]),
                ("// Sum of the item name lengths.", ["Shop", "Pricing", "Total"])],
    "cart.rb": [("# Items a customer", ["Shop", "Cart"]), ("attr_reader :owner", ["Shop", "Cart"]),
                ("# Adds one item.", ["Shop", "Cart", "add_item"]),
                ("# Sum of the item name lengths.", ["total"])],
    "Cart.php": [("* Items a customer", ["Cart"]), ("/** @var string[] */", ["Cart"]),
                 ("// Adds one item.", ["Cart", "addItem"]), ("#[Pure]", ["Cart", "addItem"]),
                 ("/** Sum of the item name lengths. */", ["total"]), ("use InvalidArgumentException;", [])],
    "Cart.kt": [("/** Items a customer", ["Cart"]), ("// Adds one item.", ["Cart", "addItem"]),
                ("const val MAX_ITEMS = 100", ["Cart", "Companion"]),
                ("/** Sum of the item name lengths. */", ["total"])],
    "deploy.sh": [("# Print how to call", ["usage"]), ('HOST="${1:-localhost}"', [])],
}

EXPECTED_LANGUAGE = {
    "service.py": "python", "cart.jsx": "javascript", "store.ts": "typescript", "Panel.tsx": "tsx",
    "cart.go": "go", "cart.rs": "rust", "Cart.java": "java", "cart.c": "c", "cart.cpp": "cpp",
    "Cart.cs": "c_sharp", "cart.rb": "ruby", "Cart.php": "php", "Cart.kt": "kotlin",
    "deploy.sh": "bash", "Cart.swift": "swift",
}


def assert_exact_cover(text: str, doc) -> None:
    """Sections are in order, cover every line once, and hold exactly their lines."""
    lines = text.splitlines()
    assert "\n".join(s.text for s in doc.sections) == "\n".join(lines)
    expected_start = 1
    for section in doc.sections:
        assert section.start_line == expected_start
        assert section.end_line >= section.start_line
        assert section.text == "\n".join(lines[section.start_line - 1:section.end_line])
        expected_start = section.end_line + 1
    assert expected_start == len(lines) + 1


def section_holding(doc, needle: str):
    [hit] = [s for s in doc.sections if any(needle in line for line in s.text.split("\n"))]
    return hit


@pytest.mark.parametrize("name", sorted(EXPECTED_PATHS))
def test_heading_paths_follow_definitions(name):
    doc = parse_code(f"src/{name}", SOURCES[name])
    module = name.rsplit(".", 1)[0]
    assert doc.kind == "code"
    assert doc.title == name
    assert doc.meta["language"] == EXPECTED_LANGUAGE[name]
    assert [s.heading_path for s in doc.sections] == [[module] + p for p in EXPECTED_PATHS[name]]
    symbols = [".".join(p) for p in EXPECTED_PATHS[name] if p]
    assert doc.meta["symbols"] == list(dict.fromkeys(symbols))


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_sections_reproduce_the_file(name):
    assert_exact_cover(SOURCES[name], parse_code(name, SOURCES[name]))


@pytest.mark.parametrize("name", sorted(BELONGS))
def test_comments_docstrings_and_decorators_stay_with_their_definition(name):
    doc = parse_code(name, SOURCES[name])
    module = name.rsplit(".", 1)[0]
    for needle, path in BELONGS[name]:
        assert section_holding(doc, needle).heading_path == [module] + path, needle


def test_method_section_starts_at_its_comment_and_ends_at_its_body():
    doc = parse_code("service.py", SOURCES["service.py"])
    total = next(s for s in doc.sections if s.heading_path == ["service", "Cart", "total"])
    lines = SOURCES["service.py"].splitlines()
    assert lines[total.start_line - 1] == "    # Totals are computed on demand."
    assert lines[total.start_line] == "    @property"
    assert "return sum(price(i) for i in self.items)" in total.text


def test_module_level_code_is_its_own_section():
    doc = parse_code("service.py", SOURCES["service.py"])
    first = doc.sections[0]
    assert first.heading_path == ["service"]
    assert first.text.startswith('"""Shopping cart service."""')
    assert "MAX_ITEMS = 100" in first.text and "class Cart" not in first.text


SCRIPT = """\
'use strict';

module.exports = {
  start(server) {
    return server.listen(8080);
  },
  stop: function (server) {
    server.destroy();
  },
};

exports.restart = async function (server) {
  await server.close();
  return server.listen(9090);
};

Cart.prototype.add = function (item) {
  this.items.push(item);
};

const api = {
  fetchUser: async (id) => {
    return fetch(`/users/${id}`);
  },
};

const PORT = 8080;

(function sidebar() {
  function toggle(el) {
    el.hidden = !el.hidden;
  }
  document.body.addEventListener("click", toggle);
})();

(function () {
  function track(event) {
    console.log(event);
  }
}());

export default class extends Base {
  render() {
    return null;
  }
}
"""


@pytest.mark.parametrize("name", ["server.js", "server.ts"])
def test_functions_a_script_assigns_exports_or_calls_at_once_have_their_own_heading(name):
    """JavaScript's other ways to define a function (CommonJS's exports, an object of functions, a function
    called where it is written, a default export without a name) went under the module's name alone: rustdoc's
    book.js (844 lines, its code in IIFEs) was one section of 830 lines headed 'book'."""
    doc = parse_code(name, SCRIPT)
    for needle, path in [("server.listen(8080)", ["start"]), ("server.destroy()", ["stop"]),
                         ("await server.close()", ["restart"]), ("this.items.push", ["Cart", "add"]),
                         ("fetch(`/users", ["api", "fetchUser"]), ("el.hidden", ["sidebar", "toggle"]),
                         ("addEventListener", ["sidebar"]), ("console.log", ["track"]),
                         ("return null", ["default", "render"]), ("const PORT", [])]:
        assert section_holding(doc, needle).heading_path == ["server"] + path, needle
    assert doc.meta["symbols"] == ["start", "stop", "restart", "Cart.add", "api", "api.fetchUser", "sidebar",
                                   "sidebar.toggle", "track", "default", "default.render"]
    ambient = parse_code("types.d.ts", 'declare module "left-pad" {\n  export function pad(s: string): string;\n}\n')
    assert [s.heading_path for s in ambient.sections] == [["types.d", "left-pad"]]  # the module's name, unquoted


def test_swift_has_no_grammar_and_falls_back_to_one_section():
    doc = parse_code("Cart.swift", SOURCES["Cart.swift"])
    assert doc.meta["language"] == "swift"
    assert "no tree-sitter grammar" in doc.meta["fallback"]
    assert [(s.heading_path, s.start_line, s.end_line) for s in doc.sections] == [
        (["Cart"], 1, len(SOURCES["Cart.swift"].splitlines()))]


def test_unknown_extension_falls_back_to_one_section():
    text = "first line\nsecond line\n\nfourth line\n"
    doc = parse_code("notes/data.xyz", text)
    assert doc.meta == {"language": None, "symbols": [], "fallback": "unknown extension"}
    assert len(doc.sections) == 1
    assert_exact_cover(text, doc)


def test_code_nested_deeper_than_pythons_recursion_limit_falls_back_to_one_section():
    """The outline is read by recursion into blocks: 1,500 nested blocks raised RecursionError and the file
    failed at parse, where a parser failure is meant to give one section for the whole file."""
    text = "{\n" * 1500 + "let wombat = 1;\n" + "}\n" * 1500
    doc = parse_code("deep.js", text)
    assert doc.meta["fallback"].startswith("parse failed") and len(doc.sections) == 1
    assert_exact_cover(text, doc)


@pytest.mark.timeout(120)
def test_a_large_source_file_is_windowed_by_lines_without_a_syntax_tree(tmp_path):
    """tree-sitter's tree and the walks over it take 170-340 bytes of memory per byte of source (an 8 MB .js of
    short statements: 2.7 GB and 46 s), so a 64 MiB file could take a worker down. A file over OUTLINE_BYTES
    is windowed by lines like one without a grammar, and says why."""
    from ingest.code import OUTLINE_BYTES
    from ingest.files import read_and_parse

    line = "a(1, 2, 3); b[4] = [5, 6, 7, 8];\n"
    (tmp_path / "data.js").write_text("function first() {\n  return 1;\n}\n" + line * (OUTLINE_BYTES // len(line) + 1))
    doc = read_and_parse(tmp_path, "data.js").doc
    size = (tmp_path / "data.js").stat().st_size
    assert doc.meta["fallback"] == f"too large to outline: {size:,} bytes (over {OUTLINE_BYTES:,})"
    assert [s.heading_path for s in doc.sections] == [["data"]]
    small = parse_code("small.js", "function first() {\n  return 1;\n}\n" + line * 100)
    assert "fallback" not in small.meta and small.sections[0].heading_path == ["small", "first"]


@pytest.mark.timeout(120)
def test_a_file_that_tree_sitter_parses_in_quadratic_time_falls_back_after_outline_seconds(monkeypatch):
    """Error recovery in some grammars is quadratic: 20,000 lines of '<<EOF' (120 KB of .sh) took tree-sitter 27 s
    here, 60,000 lines of '#if X' in a .java minutes; a file of 1 MiB would hold a worker for half an hour. The parse
    stops after OUTLINE_SECONDS and the file is windowed by lines; the shared parser reads the next file afresh."""
    import ingest.code as module

    monkeypatch.setattr(module, "OUTLINE_SECONDS", 0.5)
    text = "<<EOF\n" * 20_000
    started = time.monotonic()
    doc = parse_code("heredocs.sh", text)
    assert time.monotonic() - started < 15
    assert doc.meta["fallback"] == "parse failed: tree-sitter gave up after 0.5 s"
    assert_exact_cover(text, doc)
    after = parse_code("greet.sh", "greet() {\n  echo hello\n}\n")
    assert "fallback" not in after.meta and [s.heading_path for s in after.sections] == [["greet", "greet"]]


def test_crlf_and_missing_final_newline_keep_line_numbers():
    text = SOURCES["cart.go"].replace("\n", "\r\n").rstrip("\r\n")
    doc = parse_code("cart.go", text)
    assert [s.heading_path for s in doc.sections] == [["cart"] + p for p in EXPECTED_PATHS["cart.go"]]
    assert_exact_cover(text, doc)
    assert all("\r" not in s.text for s in doc.sections)


def test_closing_brackets_and_blank_lines_join_the_previous_section():
    doc = parse_code("Cart.java", SOURCES["Cart.java"])
    assert doc.sections[-1].text.endswith("    }\n}")
    assert all(s.text.strip() not in ("", "}") for s in doc.sections)


def test_empty_file_has_no_sections():
    assert parse_code("empty.py", "").sections == []


def test_every_language_of_the_brief_is_mapped():
    for ext, language in {".py": "python", ".js": "javascript", ".jsx": "javascript",
                          ".mjs": "javascript", ".cjs": "javascript", ".ts": "typescript",
                          ".tsx": "tsx", ".go": "go", ".rs": "rust", ".java": "java", ".c": "c",
                          ".cpp": "cpp", ".cs": "c_sharp", ".rb": "ruby", ".php": "php",
                          ".kt": "kotlin", ".swift": "swift", ".sh": "bash"}.items():
        assert LANGUAGES[ext] == language


def test_the_parser_reads_its_own_source():
    from pathlib import Path

    import ingest.code as module

    text = Path(module.__file__).read_text(encoding="utf-8")
    doc = parse_code(module.__file__, text)
    assert_exact_cover(text, doc)
    assert {"parse_code", "check_indexable", "Definition"} <= set(doc.meta["symbols"])


# --- files that are not indexed -----------------------------------------------

@pytest.mark.parametrize("name", ["package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock",
                                  "poetry.lock", "Gemfile.lock", "composer.lock", "go.sum",
                                  "vendor/jquery.min.js", "static/site.min.css", "npm-shrinkwrap.json",
                                  "src/packages.lock.json", "infra/.terraform.lock.hcl", "dist2/esm/index.min.mjs"])
def test_lock_and_minified_files_are_skipped(name):
    with pytest.raises(Skip, match="^minified or generated"):
        parse_code(name, "a = 1\n")


def test_minified_bundle_is_skipped():
    bundle = "!function(e){" + "var a=e.x||{};a.f=function(t){return t*2};" * 60 + "}(window);"
    text = "/*! lib v1 */\n" + bundle + "\n"
    assert max(map(len, text.splitlines())) > 1000
    with pytest.raises(Skip, match="^minified or generated"):
        parse_code("dist/bundle.js", text)


def test_one_long_line_in_normal_code_is_kept():
    text = "DATA = '" + "x" * 1500 + "'\n" + "".join(f"def f{i}():\n    return {i}\n" for i in range(20))
    doc = parse_code("data.py", text)
    assert len(doc.sections) == 21


@pytest.mark.parametrize("header", [
    "// Code generated by protoc-gen-go. DO NOT EDIT.",
    "# @generated by pants",
    "/* This file was automatically generated by SWIG */",
    "// Auto-generated from schema.json",
])
def test_generated_files_are_skipped(header):
    with pytest.raises(Skip, match="^minified or generated"):
        parse_code("gen.go", "package x\n" + header + "\nfunc F() {}\n")


@pytest.mark.parametrize("name, header", [
    ("migrations/0002_invoice_due_date.py", "# Generated by Django 4.2.7 on 2025-04-11 16:40"),
    ("billing/settings.py", '"""\nDjango settings for billing project.\n\n'
                            "Generated by 'django-admin startproject' using Django 4.2.7.\n\"\"\""),
    ("alembic/versions/3f2a_add_due_date.py", "def upgrade():\n    # ### commands auto generated by Alembic - please "
                                              "adjust! ###"),
])
def test_files_a_tool_made_once_for_editing_are_read(name, header):
    """A migration or a settings module that a scaffold wrote is the project's own code (it was skipped as generated:
    the migration that added a column could not be found)."""
    doc = parse_code(name, header + "\n\nDATABASES = {'default': {}}\n\n\ndef forwards(apps, schema_editor):\n"
                           "    pass\n")
    assert "forwards" in doc.meta["symbols"]


RAILS_SCHEMA = """\
# This file is auto-generated from the current state of the database. Instead
# of editing this file, please use the migrations feature of Active Record to
# incrementally modify your database, and then regenerate this schema definition.
#
# This file is the source Rails uses to define your schema when running `bin/rails
# db:schema:load`.

ActiveRecord::Schema[7.1].define(version: 2025_04_11_164000) do
  create_table "invoices", force: :cascade do |t|
    t.bigint "customer_id", null: false
    t.integer "amount_cents", null: false
    t.date "due_date"
    t.string "currency", limit: 3
  end
end
"""


STRUCTURE_SQL = """\
SET statement_timeout = 0;
--
-- PostgreSQL database dump
--

-- Dumped from database version 15.4
-- Dumped by pg_dump version 15.4

CREATE TABLE public.invoices (
    id bigint NOT NULL,
    due_date date
);
"""


@pytest.mark.parametrize("name, text, column", [("db/schema.rb", RAILS_SCHEMA, 't.date "due_date"'),
                                                ("db/structure.sql", STRUCTURE_SQL, "due_date date")])
def test_a_database_schema_dump_is_read(name, text, column):
    """db/schema.rb (structure.sql, pg_dump's, alike) is the one file that says which columns a table has now: it
    was skipped as generated."""
    doc = parse_code(name, text)
    assert column in "\n".join(s.text for s in doc.sections)


@pytest.mark.parametrize("name, text", [
    ("lib/models/invoice.g.dart", "// GENERATED CODE - DO NOT MODIFY BY HAND\n\npart of 'invoice.dart';\n\n"
                                  "Invoice _$InvoiceFromJson(Map<String, dynamic> json) => Invoice();\n"),
    ("lib/src/billing.pbenum.dart", "//\n//  Generated code. Do not modify.\n//  source: billing.proto\n//\n"
                                    "class Status {}\n"),
    ("lib/models/invoice.freezed.dart", "// coverage:ignore-file\n// ignore_for_file: type=lint\n\n"
                                        "part of 'invoice.dart';\n\nmixin _$Invoice {}\n"),
    ("test/invoice_test.mocks.dart", "// Mocks generated by Mockito 5.4.4 from annotations\n"
                                     "// Do not manually edit this file.\n\nclass MockClient {}\n"),
])
def test_dart_generated_code_is_skipped(name, text):
    """Dart's build_runner and protoc mark their output 'GENERATED CODE - DO NOT MODIFY BY HAND', 'Generated code.
    Do not modify.'; freezed's and Mockito's parts are told by their names. They were read as the project's code."""
    with pytest.raises(Skip, match="^minified or generated"):
        parse_code(name, text)


def test_dart_code_of_the_project_is_read():
    doc = parse_code("lib/models/invoice.dart", "// Generated code lives in invoice.g.dart.\n"
                                                 "part 'invoice.g.dart';\n\nclass Invoice {}\n")
    assert doc.sections


def test_generated_marker_after_line_five_or_in_prose_is_ignored():
    late = "a = 1\n" * 5 + "# DO NOT EDIT below\n"
    assert parse_code("late.py", late).sections
    prose = '"""Generated reports are parsed here."""\nimport os\n'
    assert parse_code("reports.py", prose).sections


# --- property: any input keeps the cover invariant -------------------------------

TOKENS = ["def f(x):", "class A:", "    ", "\t", "# note", "@deco", "return x", "pass", "{", "}",
          "fn g() {", "impl A {", "func (a *A) M() {", "/** doc */", "'''", '"', "é", "\r\n", "\n"]


@settings(max_examples=150, deadline=None)
@given(parts=st.lists(st.sampled_from(TOKENS), max_size=60),
       ext=st.sampled_from([".py", ".rs", ".go", ".js", ".rb", ".cpp"]))
def test_any_text_is_covered_exactly_once(parts, ext):
    text = "".join(parts)
    doc = parse_code("m" + ext, text)
    normalised = text.replace("\r\n", "\n")
    lines = normalised.split("\n")
    if lines[-1] == "":
        lines.pop()
    assert "\n".join(s.text for s in doc.sections) == "\n".join(lines)
    for s in doc.sections:
        assert s.text == "\n".join(lines[s.start_line - 1:s.end_line])
        assert s.heading_path[0] == "m"


# Languages tree-sitter-languages has a grammar for that were windowed by lines, so a hit in them named no function.
MORE_LANGUAGES = {
    "TtlCache.scala": ('''\
package com.example.cache

import scala.collection.mutable

/** A cache that expires entries. */
final class TtlCache[K, V](ttlMillis: Long) {
  private val store = mutable.HashMap.empty[K, (V, Long)]

  @throws[IllegalStateException]
  def get(key: K): Option[V] = store.get(key) match {
    case Some((v, at)) if System.currentTimeMillis() - at < ttlMillis => Some(v)
    case _ => None
  }
}

object TtlCache {
  val DefaultTtl: Long = 60000L
  def apply[K, V](): TtlCache[K, V] = new TtlCache[K, V](DefaultTtl)
}
''', [[], ["TtlCache"], ["TtlCache", "get"], ["TtlCache"], ["TtlCache", "apply"]],
        [("@throws[IllegalStateException]", ["TtlCache", "get"]), ("/** A cache", ["TtlCache"])]),
    "Stats.jl": ('''\
module Stats

export zscore

function zscore(xs::AbstractVector{<:Real})
    m = sum(xs) / length(xs)
    return [x - m for x in xs]
end

struct Summary{T}
    mean::T
end

end # module
''', [["Stats"], ["Stats", "zscore"], ["Stats", "Summary"]], []),
    "Cache.pm": ('''\
package My::Cache;
use strict;

# Make a cache.
sub new {
    my ($class, %args) = @_;
    return bless { ttl => $args{ttl} }, $class;
}

sub get {
    my ($self, $key) = @_;
    return $self->{store}{$key};
}

1;
''', [["My::Cache"], ["My::Cache", "new"], ["My::Cache", "get"], ["My::Cache"]],
        [("# Make a cache.", ["My::Cache", "new"]), ("use strict;", ["My::Cache"])]),
}


@pytest.mark.parametrize("name", sorted(MORE_LANGUAGES))
def test_scala_julia_and_perl_are_cut_at_their_definitions(name):
    source, paths, belongs = MORE_LANGUAGES[name]
    doc = parse_code(name, source)
    module = name.rsplit(".", 1)[0]
    assert "fallback" not in doc.meta
    assert [s.heading_path for s in doc.sections] == [[module] + p for p in paths]
    for needle, path in belongs:
        assert section_holding(doc, needle).heading_path == [module] + path, needle
    assert_exact_cover(source, doc)


TESTS_JS = """\
import { Cart } from "./cart";

describe("cart", () => {
  let cart;

  beforeEach(() => {
    cart = new Cart();
  });

  it("adds an item", () => {
    cart.add({ sku: "a1" });
    expect(cart.items).toHaveLength(1);
  });

  it.each([[1, 2], [2, 4]])("doubles %i", (a, b) => {
    expect(a * 2).toBe(b);
  });

  describe.only('checkout', function () {
    test.skip(`charges
      the card`, async () => {
      await cart.checkout();
    });

    context("when empty", () => {
      specify("refuses", () => {
        expect(() => cart.checkout()).toThrow();
      });
    });
  });

  it.todo("removes an item");
});

suite("math", function () {
  setup(function () {
    this.x = 1;
  });

  test("adds", () => {
    assert.equal(1 + 1, 2);
  });
});

test.concurrent.each`a | b
  ${1} | ${2}`("ships $a", async ({ a }) => {
  await ship(a);
});
"""


@pytest.mark.parametrize("name", ["cart.test.js", "cart.test.ts", "cart.spec.tsx"])
def test_tests_groups_and_hooks_of_a_test_file_have_their_own_heading(name):
    """jest's, mocha's and vitest's describe / it / test / context / suite (``.only``, ``.skip``, ``.each``) and
    their hooks went under the module's name alone: a search for a test's title gave 'cart.test'."""
    doc = parse_code(name, TESTS_JS)
    module = name.rsplit(".", 1)[0]
    for needle, path in [("cart = new Cart()", ["cart", "beforeEach"]), ("cart.add(", ["cart", "adds an item"]),
                         ("a * 2", ["cart", "doubles %i"]), ("await cart.checkout()", ["cart", "checkout", "charges the card"]),
                         ("toThrow", ["cart", "checkout", "when empty", "refuses"]), ("it.todo", ["cart"]),
                         ("this.x = 1", ["math", "setup"]), ("1 + 1", ["math", "adds"]), ("await ship", ["ships $a"]),
                         ("import { Cart }", [])]:
        assert section_holding(doc, needle).heading_path == [module] + path, needle
    assert doc.meta["symbols"][:3] == ["cart", "cart.beforeEach", "cart.adds an item"]
    assert_exact_cover(TESTS_JS, doc)
    other = parse_code("app.js", 'app.get("/users", (req, res) => {\n  res.send([]);\n});\n')
    assert [s.heading_path for s in other.sections] == [["app"]]  # a call that is not a test's stays the module's


GROUPED_GO = """\
package shop

// Kinds of item.
type (
	// Item is one thing in a cart.
	Item struct {
		SKU string
	}

	// Pricer prices items.
	Pricer interface {
		Price(Item) int
	}
)

const (
	StatusOpen Status = iota
	StatusPaid
	StatusShipped
	StatusLost, StatusFound = 8, 9
)

var (
	mu    sync.Mutex
	carts = map[string]*Cart{}
)

var ErrEmpty = errors.New("empty cart")

const MaxItems = 100

type ID = string
"""


def test_go_grouped_types_are_each_a_definition_and_a_const_or_var_block_is_named_by_its_names():
    """Go's ``type ( … )``, ``const ( … )`` and ``var ( … )`` went under the module's name alone."""
    doc = parse_code("shop.go", GROUPED_GO)
    for needle, path in [("// Kinds of item.", ["Item"]), ("type (", ["Item"]), ("SKU string", ["Item"]),
                         ("// Pricer prices", ["Pricer"]), ("Price(Item) int", ["Pricer"]),
                         ("StatusPaid", ["StatusOpen, StatusPaid, StatusShipped +2"]), ("carts = ", ["mu, carts"]),
                         ("var ErrEmpty", []), ("const MaxItems", []), ("type ID", ["ID"]), ("package shop", [])]:
        assert section_holding(doc, needle).heading_path == ["shop"] + path, needle
    pricer = section_holding(doc, "Price(Item) int")
    assert pricer.text.rstrip().endswith("\t}\n)")  # the group's ')' ends its last type
    assert_exact_cover(GROUPED_GO, doc)


JULIA_PERL = {
    "Geometry.jl": ("""\
module Geometry

# Area of a circle.
area(r) = pi * r^2
Base.show(io::IO, p::Point) = print(io, "(", p.x, ", ", p.y, ")")
const ORIGIN = 0

function dist(a, b)
    return sqrt((a.x - b.x)^2 + (a.y - b.y)^2)
end

end
""", [("# Area of a circle.", ["Geometry", "area"]), ("Base.show", ["Geometry", "Base.show"]),
      ("const ORIGIN", ["Geometry"]), ("sqrt(", ["Geometry", "dist"])]),
    "Shop.pm": ("""\
package Shop::Cart;
use strict;

sub new {
    my ($class) = @_;
    return bless { items => [] }, $class;
}

package Shop::Item {
    sub sku { $_[0]{sku} }
}

package Shop::Order;

sub total {
    my ($self) = @_;
    return 0;
}

1;
""", [("use strict", ["Shop::Cart"]), ("bless", ["Shop::Cart", "new"]), ("sub sku", ["Shop::Item", "sku"]),
      ("package Shop::Order", ["Shop::Order"]), ("return 0", ["Shop::Order", "total"]), ("1;", ["Shop::Order"])]),
}


@pytest.mark.parametrize("name", sorted(JULIA_PERL))
def test_julia_one_line_functions_and_perl_packages_head_their_definitions(name):
    """Julia's ``area(r) = …`` went under the module alone, and Perl's subs after ``package Shop::Cart;`` did not
    say whose they were."""
    assert_headings(name, *JULIA_PERL[name])


RUBY_BLOCKS = {
    "cart_spec.rb": ('''\
require "spec_helper"

RSpec.describe Cart do
  let(:cart) { Cart.new }

  before do
    cart.clear
  end

  describe "#add" do
    it "adds an item" do
      cart.add(1)
      expect(cart.items).to eq([1])
    end

    context "when full" do
      it "raises" do
        expect { cart.add(2) }.to raise_error(CartFull)
      end
    end
  end
end
''', [("require", []), ("let(:cart)", ["Cart"]), ("cart.clear", ["Cart", "before"]),
      ("eq([1])", ["Cart", "#add", "adds an item"]), ("raise_error", ["Cart", "#add", "when full", "raises"])]),
    "tasks.rake": ('''\
namespace :db do
  desc "Seed the database"
  task seed: :environment do
    Seeder.run
  end

  task :reset do
    Db.drop
  end
end

config.before(:each) do
  Db.clean
end
''', [("namespace :db", ["db"]), ("Seeder.run", ["db", "seed"]), ("Db.drop", ["db", "reset"]),
      ("Db.clean", [])]),
}


@pytest.mark.parametrize("name", sorted(RUBY_BLOCKS))
def test_rspec_examples_and_rake_tasks_have_their_own_heading(name):
    """An RSpec file (describe / context / it and its hooks) and a Rakefile's namespaces and tasks went under the
    module's name alone: a hit in cart_spec.rb said 'cart_spec' and nothing of which example it was in."""
    assert_headings(name, *RUBY_BLOCKS[name])


def assert_headings(name: str, source: str, belongs: list) -> None:
    """Each (needle, path) of ``belongs``: the section holding the needle's line is headed [module] + path."""
    doc = parse_code(name, source)
    module = name.rsplit(".", 1)[0]
    for needle, path in belongs:
        assert section_holding(doc, needle).heading_path == [module] + path, needle
    assert_exact_cover(source, doc)


SUBTESTS_AND_MORE = {
    "cart_test.go": ('''\
package cart

import "testing"

// TestCart checks the cart.
func TestCart(t *testing.T) {
	c := New()

	t.Run("adds an item", func(t *testing.T) {
		c.Add(1)
		if c.Len() != 1 {
			t.Fatal("want 1")
		}
	})

	// emptying
	t.Run("empty then add", func(t *testing.T) {
		t.Run("nested", func(t *testing.T) {
			c.Clear()
		})
	})

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.check(t) })
	}
	var a, b int
	_ = a + b
}
''', [("c := New()", ["TestCart"]), ("c.Add(1)", ["TestCart", "adds an item"]),
      ("// emptying", ["TestCart", "empty then add"]), ("c.Clear()", ["TestCart", "empty then add", "nested"]),
      ("tc.check(t)", ["TestCart"]), ("var a, b int", ["TestCart"])]),
    "CartSpec.scala": ('''\
package shop

class CartSpec extends AnyFlatSpec {
  "a cart" should "add an item" in {
    val cart = new Cart
    cart.add(1)
  }

  it should "be empty when new" in {
    assert(new Cart().isEmpty)
  }
}

class CartSuite extends AnyFunSuite {
  test("total sums the prices") {
    assert(total(List(1, 2)) == 3)
  }
}

class StackSpec extends AnyWordSpec {
  "A Stack" when {
    "empty" should {
      "raise on pop" in {
        intercept[Exception](new Stack().pop())
      }
    }
  }
}

class SetSpec extends AnyFunSpec {
  describe("A Set") {
    it("is empty at first") {
      assert(Set.empty.size == 0)
    }
  }
}
''', [("cart.add(1)", ["CartSpec", "a cart should add an item"]),
      ("Set.empty", ["SetSpec", "A Set", "is empty at first"]),
      ("isEmpty", ["CartSpec", "it should be empty when new"]),
      ("total(List", ["CartSuite", "total sums the prices"]),
      ("pop())", ["StackSpec", "A Stack when", "empty should", "raise on pop"])]),
    "Handlers.kt": ('''\
package shop

typealias Handler = (Request) -> Response

val byPrice = object : Comparator<Item> {
    override fun compare(a: Item, b: Item): Int = a.price - b.price
}

val limit = 10
''', [("typealias", ["Handler"]), ("val byPrice", ["byPrice"]), ("a.price", ["byPrice", "compare"]),
      ("val limit", [])]),
    "Cart.cs": ('''\
namespace Shop
{
    public class Cart
    {
        private readonly List<Item> items = new();

        public int Count { get; set; }

        public decimal Total
        {
            get { return items.Sum(i => i.Price); }
        }

        public void Add(Item item)
        {
            items.Add(item);
        }
    }
}
''', [("readonly", ["Shop", "Cart"]), ("Count", ["Shop", "Cart", "Count"]), ("i.Price", ["Shop", "Cart", "Total"]),
      ("items.Add", ["Shop", "Cart", "Add"])]),
    "routes.php": ('''\
<?php

use Illuminate\\Support\\Facades\\Route;

$format = function ($user) {
    return ['id' => $user->id];
};

Route::get('/users', function () {
    return User::all()->map($format);
});

$app->post('/users/{id}', function ($request, $response, $args) {
    return $response->withStatus(201);
});

$cache->get('users', function ($item) {
    return loadUsers();
});
''', [("use Illuminate", []), ("$user->id", ["format"]), ("User::all", ["GET /users"]),
      ("withStatus", ["POST /users/{id}"]), ("loadUsers", [])]),
}


@pytest.mark.parametrize("name", sorted(SUBTESTS_AND_MORE))
def test_subtests_scala_tests_properties_and_closures_have_their_own_heading(name):
    """Go's subtests (t.Run("adds an item", func …)) went under their test function, ScalaTest's tests under their
    class, C#'s properties, Kotlin's type aliases and objects bound to a name, PHP's closures bound to a variable
    and route closures (Route::get('/users', function …)) under what held them: a hit named no test or route."""
    assert_headings(name, *SUBTESTS_AND_MORE[name])


LEFT_UNDONE = {
    "web.php": ('''\
<?php

use Illuminate\\Support\\Facades\\Route;

Route::prefix('admin')->middleware('auth')->group(function () {
    Route::get('/users', [UserController::class, 'index'])->name('users.index');
    Route::post('users', 'UserController@store');
    Route::prefix('reports')->group(function () {
        Route::get('/daily', function () {
            return Report::daily();
        });
    });
});

Route::group(['prefix' => 'api', 'middleware' => 'auth:sanctum'], function () {
    Route::delete('/users/{id}', [UserController::class, 'destroy']);
});

Route::get('/me', ShowProfile::class);

$app->group('/v1', function (RouteCollectorProxy $group) {
    $group->get('/items', function ($request, $response) {
        return $response;
    });
});

$items->group(function ($item) {
    return $item->kind;
});
''', [("use Illuminate", []), ("Route::prefix('admin')", []), ("'index'", ["GET /admin/users"]),
      ("UserController@store", ["POST /admin/users"]), ("Report::daily", ["GET /admin/reports/daily"]),
      ("'destroy'", ["DELETE /api/users/{id}"]), ("ShowProfile", ["GET /me"]),
      ("return $response", ["GET /v1/items"]), ("$item->kind", [])]),
    "Ui.kt": ('''\
package shop

val onClick = { println("clicked") }

val handler: (Int) -> Unit = { code ->
    println(code)
}

private val parse = fun(s: String): Int {
    return s.toInt()
}

class Screen {
    val onBack = { finish() }
    val title = "Cart"
}
''', [('println("clicked', ["onClick"]), ("println(code)", ["handler"]), ("s.toInt()", ["parse"]),
      ("finish()", ["Screen", "onBack"]), ("val title", ["Screen"])]),
    "cart_test.go": ('''\
package cart

func TestCart(t *testing.T) {
	tests := []struct {
		name string
		add  int
	}{
		{name: "adds an item", add: 1},
		{name: "adds two", add: 2},
		{name: "adds none", add: 0},
		{name: "adds, then counts", add: 3},
	}
	// each case
	for _, tc := range tests {
		tc := tc
		t.Run(tc.name, func(t *testing.T) {
			New().Add(tc.add)
		})
	}
	for name, want := range map[string]int{"empty": 0, `one`: 1} {
		t.Run(name, func(t *testing.T) { check(t, want) })
	}
	for _, tc := range []struct{ in, want string }{{"a b", "ab"}, {"c", "c"}} {
		t.Run(tc.in, func(t *testing.T) { squash(tc.in) })
	}
	for _, tc := range loadCases() {
		t.Run(tc.name, func(t *testing.T) { tc.run(t) })
	}
}
''', [("tests := []struct", ["TestCart"]), ("adds an item", ["TestCart"]),
      ("// each case", ["TestCart", "adds an item, adds two, adds none +1"]),
      ("New().Add", ["TestCart", "adds an item, adds two, adds none +1"]),
      ("check(t, want)", ["TestCart", "empty, one"]), ("squash", ["TestCart", "a b, c"]),
      ("tc.run(t)", ["TestCart"])]),
}


@pytest.mark.parametrize("name", sorted(LEFT_UNDONE))
def test_laravel_groups_and_controller_routes_kotlin_lambdas_and_go_table_subtests_have_their_own_heading(name):
    """Routes in a Laravel group (and Slim's) take its prefix, a route to a controller's action is a route too;
    Kotlin's lambdas and anonymous functions bound to a name are definitions; a Go table's subtests (for _, tc :=
    range tests { t.Run(tc.name, …) }, the table a literal in the test) are headed by the table's names. All of
    them went under the module's name or their test function, naming no route, handler or case."""
    assert_headings(name, *LEFT_UNDONE[name])


def test_a_deeply_nested_definition_keeps_its_outer_and_inner_names():
    """250 Python classes each nested in the one above gave the last a heading path of 251 names (and symbols of
    up to 250 names each). A deep path keeps the module, the three outermost names, '…' and the four innermost;
    a path of no more than eight names is whole. At 256 columns of indentation or more tree-sitter's Python
    grammar gives up (its indent stack holds 255), the file's root being an ERROR: the classes above that depth
    are not read, and the outline starts at C256, its paths shortened alike."""
    def nested(depth: int) -> str:
        return "".join(" " * i + f"class C{i}:\n" for i in range(depth)) + " " * depth + "pass\n"
    deep = parse_code("deep.py", nested(250))
    assert [s.heading_path for s in deep.sections[:3]] == [["deep", "C0"], ["deep", "C0", "C1"],
                                                           ["deep", "C0", "C1", "C2"]]
    assert deep.sections[7].heading_path == ["deep", *(f"C{i}" for i in range(8))]
    assert deep.sections[-1].heading_path == ["deep", "C0", "C1", "C2", "…", "C246", "C247", "C248", "C249"]
    assert deep.meta["symbols"][-1] == "C0.C1.C2.….C246.C247.C248.C249"
    assert max(len(s.heading_path) for s in deep.sections) == 9
    deeper = parse_code("deep.py", nested(400))
    assert deeper.sections[-1].heading_path == ["deep", "C256", "C257", "C258", "…", "C396", "C397", "C398", "C399"]



# A migration as a Postgres repository holds one (the monorepo these were measured on had it as db/schema/001_uploads.sql).
SCHEMA_SQL = """\
-- Uploads: one row per object stored by the uploader service.
CREATE TABLE IF NOT EXISTS uploads (
    id            BIGSERIAL PRIMARY KEY,
    bucket        TEXT NOT NULL,
    object_key    TEXT NOT NULL,
    content_type  TEXT NOT NULL,
    size_bytes    BIGINT NOT NULL CHECK (size_bytes >= 0),
    etag          TEXT,
    status        TEXT NOT NULL DEFAULT 'pending',
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    completed_at  TIMESTAMPTZ,
    UNIQUE (bucket, object_key)
);

CREATE INDEX IF NOT EXISTS uploads_status_created_idx ON uploads (status, created_at);

-- The parts of a multipart upload, retried independently.
CREATE TABLE upload_parts (
    upload_id    BIGINT NOT NULL REFERENCES uploads(id) ON DELETE CASCADE,
    part_number  INTEGER NOT NULL,
    etag         TEXT,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,
    PRIMARY KEY (upload_id, part_number)
);

CREATE VIEW stalled_uploads AS
    SELECT u.id, u.bucket, u.object_key, max(p.attempts) AS max_attempts
    FROM uploads u JOIN upload_parts p ON p.upload_id = u.id
    WHERE u.status = 'pending' AND u.created_at < now() - interval '1 hour'
    GROUP BY u.id;

CREATE OR REPLACE FUNCTION mark_upload_complete(p_upload_id BIGINT, p_etag TEXT) RETURNS VOID AS $$
BEGIN
    UPDATE uploads SET status = 'complete', etag = p_etag, completed_at = now() WHERE id = p_upload_id;
END;
$$ LANGUAGE plpgsql;

ALTER TABLE uploads ADD COLUMN checksum_sha256 TEXT;
"""


def test_sql_is_cut_at_its_tables_views_and_functions():
    """A schema or migration was windowed by lines under its file's name alone: 'upload_parts' found the file, not the
    table, and a long schema's windows said nothing of which table they were in."""
    doc = parse_code("001_uploads.sql", SCHEMA_SQL)
    assert "fallback" not in doc.meta
    assert doc.meta["symbols"] == ["uploads", "upload_parts", "stalled_uploads", "mark_upload_complete"]
    assert section_holding(doc, "part_number  INTEGER").heading_path == ["001_uploads", "upload_parts"]
    assert section_holding(doc, "-- The parts of a multipart upload").heading_path == ["001_uploads", "upload_parts"]
    assert section_holding(doc, "UPDATE uploads SET status").heading_path == ["001_uploads", "mark_upload_complete"]
    assert section_holding(doc, "CREATE INDEX").heading_path == ["001_uploads"]  # an index stays with its neighbours
    assert_exact_cover(SCHEMA_SQL, doc)
    mysql = 'CREATE TABLE `users` (\n  `id` int(11) NOT NULL AUTO_INCREMENT,\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n\nCREATE TABLE public.orders (\n  id int NOT NULL\n);\n'
    doc = parse_code("dump.sql", mysql)
    assert [s.heading_path for s in doc.sections] == [["dump", "users"], ["dump", "public.orders"]]  # quotes left out
    assert_exact_cover(mysql, doc)


def test_sql_whose_dollar_quote_is_never_closed_is_windowed_by_lines():
    """A function's body left open (a migration saved mid-edit, its closing '$$ LANGUAGE plpgsql;' not yet written):
    tree-sitter's recovery from it grows with the square of the text after it, 9 s for 38 KB and the whole
    OUTLINE_SECONDS (20 s) from 62 KB, at each save, where a .sql was windowed by lines at once before SQL was
    outlined. Such a file is windowed by lines; a '$$' in a comment or a string, or a closed one, is no such file."""
    body = "\n".join(f"    IF p_attempt > {i} THEN RAISE NOTICE 'attempt %', {i}; END IF;" for i in range(400))
    opened = SCHEMA_SQL.replace("END;\n$$ LANGUAGE plpgsql;\n", body + "\n")
    doc = parse_code("002_open.sql", opened)
    assert doc.meta["fallback"] == "a dollar quote ($$) is never closed"
    assert_exact_cover(opened, doc)
    tagged = opened.replace("AS $$", "AS $body$")
    assert parse_code("003_open.sql", tagged).meta["fallback"] == "a dollar quote ($body$) is never closed"
    quoted = "-- costs in $$ here\nSELECT 'a $$ in a string', \"col$$\" FROM t;\n/* $tag$ */\n" + SCHEMA_SQL
    doc = parse_code("004_quoted.sql", quoted)
    assert "fallback" not in doc.meta
    assert doc.meta["symbols"] == ["uploads", "upload_parts", "stalled_uploads", "mark_upload_complete"]
    mysql = "DELIMITER $$\n" + "".join(f"CREATE PROCEDURE p{i}()\nBEGIN\n  SELECT {i};\nEND $$\n" for i in range(3))
    assert "fallback" not in parse_code("005_procedures.sql", mysql + "DELIMITER ;\n").meta
    for delimiter in ("DELIMITER //", "delimiter ;;", "  DELIMITER $$  "):  # as MySQL's client takes the statement
        assert "fallback" not in parse_code("006_procedures.sql", mysql.replace("DELIMITER $$", delimiter)).meta


def test_a_column_named_delimiter_does_not_hide_an_unclosed_dollar_quote():
    """A line starting with the word 'delimiter' was read as MySQL's DELIMITER statement, whose scripts end
    statements with '$$' and hold no dollar quote: a table's column named so ('  delimiter text,') left a function's
    body never closed to tree-sitter, 20 s (OUTLINE_SECONDS) for 66 KB at each save where the file is windowed at once
    without that column. DELIMITER sets a mark, not a word: a column's type follows the column's name."""
    body = "\n".join(f"    IF p_attempt > {i} THEN RAISE NOTICE 'attempt %', {i}; END IF;" for i in range(400))
    opened = SCHEMA_SQL.replace("END;\n$$ LANGUAGE plpgsql;\n", body + "\n")
    for column in ("  delimiter text NOT NULL,", "delimiter varchar(8)", "  Delimiter CHAR(1) DEFAULT ','"):
        text = f"CREATE TABLE csv_formats (\n  id int,\n{column}\n);\n" + opened
        assert parse_code("007_open.sql", text).meta.get("fallback") == "a dollar quote ($$) is never closed", column


# --- JSON data sets: their first lines alone ---------------------------------------

def _records(n):
    return [{"model": "invoices.invoice", "pk": i, "fields": {"amount_cents": i * 7, "currency": "EUR",
                                                              "due_date": "2025-05-01", "status": "open"}}
            for i in range(n)]


@pytest.mark.parametrize("value", [_records(1000), {"data": _records(1000), "has_more": False}])
def test_a_json_data_set_is_indexed_as_its_first_lines(value):
    """A fixture of 1,000 records (a Django fixture, an API answer recorded with its records under 'data') was a
    passage per few records, each matching a search for its field names before the code that defines them."""
    text = json.dumps(value, indent=2)
    doc = parse_code("tests/fixtures/invoices.json", text)
    assert doc.sections[-1].end_line == 30 < len(text.splitlines())
    assert '"due_date": "2025-05-01"' in "\n".join(s.text for s in doc.sections)
    assert doc.meta["data_set"] == "a data set of 1,000 records: its first 30 lines indexed"


def test_a_json_data_set_knows_how_many_records_its_first_lines_hold():
    doc = parse_code("tests/fixtures/invoices.json", json.dumps({"data": _records(1000)}, indent=2))
    assert (doc.meta["data"], doc.meta["rows"], doc.meta["rows_indexed"]) == (True, 1000, 2)  # 10 lines a record


def _cassette(interactions, key="interactions"):
    return f"{key}:\n" + "".join(
        f"- request:\n    body: '{{\"amount\": {i}, \"currency\": \"EUR\"}}'\n    headers:\n      Retry-Attempt: ['1']\n"
        f"    method: POST\n    uri: https://payments.example.com/v1/charges\n  response:\n"
        f"    body: {{string: '{{\"id\": \"ch_{i:06d}\", \"detail\": \"{'x' * 700}\"}}'}}\n"
        f"    status: {{code: 503, message: Service Unavailable}}\n" for i in range(interactions)) + "version: 1\n"


@pytest.mark.parametrize("name, text, records", [
    ("tests/cassettes/charge_invoice.yaml", _cassette(80), 80),  # under 100 interactions: a cassette all the same
    ("spec/cassettes/charge.yml", _cassette(90, "http_interactions"), 90),  # Ruby's VCR
    ("test/fixtures/invoices.yml", "".join(f"invoice_{i}:\n  customer: customer_{i % 40}\n  amount_cents: {i * 7}\n"
                                           f"  currency: EUR\n  notes: {'y' * 500}\n" for i in range(150)), 150),
    ("tests/fixtures/invoices.yaml", "".join(f"- model: invoices.invoice\n  pk: {i}\n  fields:\n    currency: EUR\n"
                                             f"    notes: {'z' * 500}\n" for i in range(200)), 200),
])
def test_a_yaml_cassette_or_fixture_of_records_is_indexed_as_its_first_lines(name, text, records):
    """A recorded HTTP cassette of 64 KB or more (its answers' bodies) and a YAML fixture of many records were read
    whole, a passage per few records, each matching a search for retries or the records' field names."""
    assert len(text) >= 64 * 1024
    doc = parse_code(name, text)
    assert doc.sections[-1].end_line == 30 < len(text.splitlines())
    assert (doc.meta["data"], doc.meta["rows"]) == (True, records)
    assert 0 < doc.meta["rows_indexed"] < 10


def test_yaml_manifests_and_documents_are_read_whole():
    manifests = "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-{i}\ndata:\n"
                        f"  value: '{'z' * 300}'\n" for i in range(300))  # several documents
    openapi = "openapi: 3.1.0\npaths:\n" + "".join(f"  /invoices/{i}:\n    get:\n      summary: Invoice {i}\n"
                                                    f"      description: '{'d' * 200}'\n" for i in range(400))
    small = _cassette(3)
    for name, text in [("deploy/all.yaml", manifests), ("api/openapi.yaml", openapi), ("cassettes/small.yaml", small)]:
        doc = parse_code(name, text)
        assert doc.sections[-1].end_line == len(text.splitlines()), name
        assert "data" not in doc.meta, name


def test_json_configuration_schemas_and_small_fixtures_are_read_whole():
    paths = {f"/invoices/{i}": {"get": {"summary": f"Invoice {i}", "responses": {"200": {"description": "ok"}}}}
             for i in range(1000)}
    for name, value in [("openapi.json", {"openapi": "3.1.0", "paths": paths}),
                        ("en.json", {f"invoice.label{i}": f"Invoice label {i}" for i in range(4000)}),
                        ("countries.json", {"enum": [f"country {i}" for i in range(9000)]}),
                        ("small.json", _records(150))]:
        text = json.dumps(value, indent=2)
        doc = parse_code(name, text)
        assert doc.sections[-1].end_line == len(text.splitlines()), name
        assert "data_set" not in doc.meta


OPENAPI_TS = """\
/* tslint:disable */
/* eslint-disable */
/**
 * Billing API
 * The billing service's public API.
 *
 * The version of the OpenAPI document: 1.4.0
 *
 * NOTE: This class is auto generated by OpenAPI Generator (https://openapi-generator.tech).
 * https://openapi-generator.tech
 * Do not edit the class manually.
 */

export interface Invoice {
    id: number;
}
"""
OPENAPI_PY = '''\
# coding: utf-8

"""
    Billing API

    The billing service's public API.

    The version of the OpenAPI document: 1.4.0
    Generated by OpenAPI Generator (https://openapi-generator.tech)

    Do not edit the class manually.
"""  # noqa: E501

class Invoice:
    pass
'''


@pytest.mark.parametrize("name, text", [("api/models/Invoice.ts", OPENAPI_TS), ("client/models/invoice.py", OPENAPI_PY)])
def test_a_generator_marker_in_the_header_comment_skips_the_file(name, text):
    """OpenAPI Generator marks its clients on lines 8-10 of their header: past the first five, they were read as
    the project's own code."""
    with pytest.raises(Skip, match="^minified or generated: marker"):
        parse_code(name, text)


def test_a_marker_below_code_after_a_long_header_is_a_comment_on_that_code():
    text = "# Billing models.\n#\n# Copyright Acme.\n#\n#\n#\nimport os\n\n# DO NOT EDIT the values below by hand\nA = 1\n"
    assert parse_code("models.py", text).sections


GENERATOR_SCRIPT = '''#!/usr/bin/env python3
"""Writes the gRPC stubs of every .proto under api/ into gen/.

Run it after editing a .proto: `python tools/gen_stubs.py`.
It reads each service's methods, renders templates/stub.py.j2,
and writes gen/<service>_pb2_stubs.py, each beginning with the
banner '# Code generated by gen_stubs.py. DO NOT EDIT.'
"""
import pathlib


def render_stubs(proto):
    return pathlib.Path("gen") / f"{proto.stem}_pb2_stubs.py"
'''


def test_a_generator_quoting_the_banner_it_writes_is_read():
    """The docstring of a generator script names the banner it writes, in quotes, on line 7: read for a marker
    since the header's docstring is (not only its first five lines), the script itself was skipped as generated."""
    document = parse_code("tools/gen_stubs.py", GENERATOR_SCRIPT)
    assert "render_stubs" in document.meta["symbols"], document.meta
    with pytest.raises(Skip, match="^minified or generated: marker"):  # the banner itself, unquoted, still skips
        parse_code("gen/billing_pb2_stubs.py", "# Code generated by gen_stubs.py. DO NOT EDIT.\nA = 1\n")
    with pytest.raises(Skip, match="^minified or generated: marker"):  # quotes around the command, as Go's stringer
        parse_code("pill_string.go", '// Code generated by "stringer -type=Pill"; DO NOT EDIT.\n\npackage p\n')


def test_a_chat_export_of_messages_is_read_whole_not_as_a_data_set():
    """Telegram's result.json (DiscordChatExporter's the same: a 'messages' array) is records, but of prose: read
    as a data set's first 30 lines, a search for a later message found nothing. A fixture of numbers stays one."""
    said = ["Remember to bring the blue folder with the passports", "the plumber comes on Tuesday after lunch",
            "ok", "Grandma's soup recipe: two carrots, one leek and a bay leaf"]
    messages = [{"id": i, "type": "message", "date": f"2024-05-{i % 28 + 1:02d}T10:00:00", "from": "Mum",
                 "text": said[i % len(said)] + f" ({i})"} for i in range(900)]
    text = json.dumps({"name": "Family", "type": "personal_chat", "id": 7, "messages": messages}, indent=1)
    doc = parse_code("exports/result.json", text)
    assert "data_set" not in doc.meta, doc.meta
    assert "bay leaf (899)" in "\n".join(s.text for s in doc.sections)
    text = json.dumps(_records(1000), indent=2)
    assert parse_code("tests/fixtures/invoices.json", text).meta["data_set"].startswith("a data set of 1,000")


def test_a_marker_in_a_comment_after_code_is_said_of_that_line():
    """bump2version's convention, '__version__ = "1.2.0"  # DO NOT EDIT THIS LINE MANUALLY', in the first lines of
    a package's __init__.py (tomli_w's whole API) skipped the module as generated."""
    text = ('"""A lil\' TOML writer."""\n\n__all__ = ("dumps", "dump")\n__version__ = "1.2.0"  # DO NOT EDIT THIS LINE '
            'MANUALLY. LET bump2version UTILITY DO IT\n\n\ndef dumps(obj):\n    return "\\n".join(obj)\n')
    assert "dumps" in parse_code("tomli_w/__init__.py", text).meta["symbols"]
    with pytest.raises(Skip, match="^minified or generated: marker"):  # a comment line of its own still marks
        parse_code("version.py", "# DO NOT EDIT: written by bump2version\n__version__ = '1.2.0'\n")


def test_a_ruby_cassette_of_binary_bodies_is_a_data_set():
    """Ruby's VCR writes a body that is not UTF-8 as '!binary |-' and base64: the safe loader knows no such tag and
    refused the whole cassette, which was read whole, a passage per few recorded answers."""
    text = "---\nhttp_interactions:\n" + "".join(
        f"- request:\n    method: get\n    uri: https://files.example.com/{i}.png\n  response:\n"
        f"    status:\n      code: 200\n    body:\n      encoding: ASCII-8BIT\n      string: !binary |-\n"
        f"        {'iVBORw0KGgo' * 60}\n" for i in range(120)) + "recorded_with: VCR 6.1.0\n"
    assert len(text) >= 64 * 1024
    doc = parse_code("spec/cassettes/images.yml", text)
    assert (doc.meta.get("data"), doc.meta.get("rows")) == (True, 120)
    assert doc.sections[-1].end_line == 30


def test_a_big_yaml_fixture_is_counted_without_loading_it_whole():
    """A YAML fixture was loaded whole to count its records: 5 MB took 6.9 s and 280 MB (a 50 MB one over a minute
    and gigabytes), for a file indexed as its first 30 lines. Its records are counted from the parser's events,
    nothing below its top two levels built."""
    import tracemalloc

    from ingest.data_sets import data_set_records
    text = "".join(f"- id: {i}\n  name: customer number {i}\n  email: c{i}@example.com\n  amount: {i * 3.5}\n"
                   for i in range(60000))
    tracemalloc.start()
    try:
        assert data_set_records(".yaml", text) == 60000
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40 * 1024 * 1024, peak  # the list of 60,000 empty records; loaded whole, 200 MB and more
