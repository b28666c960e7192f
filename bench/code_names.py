"""Name queries over real code: does the definition (or the file) a developer names rank first?

Indexes huey, pypdf and aiosqlite as installed in this venv, plus three small files written here (TypeScript,
Go, Rust), through the real pipeline (huey's immediate mode), and prints hit@1 and hit@5 of each mode for
developer queries with the file and symbol (or the line) expected. Line numbers follow the installed pypdf.

    SIFT_MODEL=minilm python bench/code_names.py [--home DIR]   # DIR: reuse an index built before
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PACKAGES = ("huey", "pypdf", "aiosqlite")
SVC = {
    "users.ts": '''\
import { Db } from "./db";

const MAX_RETRIES = 5;

/**
 * Service that loads users from the database.
 */
export class UserService {
  constructor(private db: Db) {}

  /** Returns the display name of a user, or "anonymous". */
  async getUserName(id: number): Promise<string> {
    const row = await this.db.query("SELECT name FROM users WHERE id = ?", [id]);
    if (!row) {
      throw new Error(`user ${id} not found in table users`);
    }
    return row.name ?? "anonymous";
  }

  async retryFetch(url: string): Promise<Response> {
    let lastError: unknown;
    for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
      try {
        return await fetch(url);
      } catch (err) {
        lastError = err;
        await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
      }
    }
    throw lastError;
  }
}

export const formatUserLabel = (first: string, last: string): string => `${last}, ${first}`;
''',
    "cache.go": '''\
package cache

import (
	"errors"
	"sync"
	"time"
)

// ErrExpired is returned when an entry's deadline has passed.
var ErrExpired = errors.New("cache: entry expired")

// LRUCache keeps the most recently used entries up to a fixed capacity.
type LRUCache struct {
	mu       sync.Mutex
	capacity int
	items    map[string]*entry
}

type entry struct {
	value    []byte
	deadline time.Time
}

// NewLRUCache makes a cache that holds at most capacity entries.
func NewLRUCache(capacity int) *LRUCache {
	return &LRUCache{capacity: capacity, items: make(map[string]*entry)}
}

// Get returns the value stored under key, or ErrExpired once its deadline passed.
func (c *LRUCache) Get(key string) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		return nil, nil
	}
	if time.Now().After(e.deadline) {
		delete(c.items, key)
		return nil, ErrExpired
	}
	return e.value, nil
}

// evictOldest removes the entry whose deadline comes first.
func (c *LRUCache) evictOldest() {
	var oldestKey string
	var oldest time.Time
	for k, e := range c.items {
		if oldestKey == "" || e.deadline.Before(oldest) {
			oldestKey, oldest = k, e.deadline
		}
	}
	delete(c.items, oldestKey)
}
''',
    "parser.rs": '''\
use std::collections::HashMap;
use std::fmt;

/// A token read from the input.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Ident(String),
    Number(f64),
    Arrow,
}

pub struct Lexer<'a> {
    input: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    /// Reads the next token, `->` included.
    pub fn next_token(&mut self) -> Option<Token> {
        let rest = &self.input[self.pos..];
        if rest.starts_with("->") {
            self.pos += 2;
            return Some(Token::Arrow);
        }
        let word: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
        self.pos += word.len();
        if word.is_empty() { None } else { Some(Token::Ident(word)) }
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Ident(s) => write!(f, "{}", s),
            Token::Number(n) => write!(f, "{}", n),
            Token::Arrow => write!(f, "->"),
        }
    }
}

pub fn symbol_table(tokens: &[Token]) -> HashMap<String, usize> {
    let mut table = HashMap::new();
    for (i, t) in tokens.iter().enumerate() {
        if let Token::Ident(name) = t {
            table.entry(name.clone()).or_insert(i);
        }
    }
    table
}
''',
}

QUERIES = [  # (query, path the hit ends with, its last heading or a line it holds)
    ("getUserName", "svc/users.ts", "getUserName"),
    ("get user name", "svc/users.ts", "getUserName"),
    ("get_user_name", "svc/users.ts", "getUserName"),
    ("UserService.getUserName", "svc/users.ts", "getUserName"),
    ("retryFetch", "svc/users.ts", "retryFetch"),
    ("retry fetch", "svc/users.ts", "retryFetch"),
    ("formatUserLabel", "svc/users.ts", 34),
    ("NewLRUCache", "svc/cache.go", "NewLRUCache"),
    ("new lru cache", "svc/cache.go", "NewLRUCache"),
    ("LRUCache.Get", "svc/cache.go", "Get"),
    ("evictOldest", "svc/cache.go", "evictOldest"),
    ("evict oldest", "svc/cache.go", "evictOldest"),
    ("ErrExpired", "svc/cache.go", 10),
    ("next_token", "svc/parser.rs", "next_token"),
    ("Lexer::next_token", "svc/parser.rs", "next_token"),
    ("symbol_table", "svc/parser.rs", "symbol_table"),
    ("Huey.enqueue", "huey/api.py", "enqueue"),
    ("huey.api.Huey.revoke_by_id", "huey/api.py", "revoke_by_id"),
    ("revoke_by_id", "huey/api.py", "revoke_by_id"),
    ("revoke by id", "huey/api.py", "revoke_by_id"),
    ("periodic_task", "huey/api.py", "periodic_task"),
    ("notify_interrupted_tasks", "huey/api.py", "notify_interrupted_tasks"),
    ("_requeue_task", "huey/api.py", "_requeue_task"),
    ("MAX_DECLARED_STREAM_LENGTH", "pypdf/filters.py", 80),
    ("_MAX_STARTXREF_RECOVERY_LINES", "pypdf/_reader.py", ""),
    ("XMP Document is None", "pypdf/xmp.py", ""),
    ("XmpDocumentError", "pypdf/errors.py", 73),
    ("@huey.task", "huey/api.py", "task"),
    ("filters.py", "pypdf/filters.py", ""),
    ("pypdf/filters.py", "pypdf/filters.py", ""),
    # the words of camelCase names
    ("format user label", "svc/users.ts", 34),
    ("lru cache", "svc/cache.go", "LRUCache"),
    ("user service", "svc/users.ts", 7),
    ("decode stream data", "pypdf/filters.py", ""),
    # a part of a camelCase name (its words in a row)
    ("UserName", "svc/users.ts", "getUserName"),
    ("getUser", "svc/users.ts", "getUserName"),
    ("DocumentError", "pypdf/errors.py", 73),
]


def corpus() -> Path:
    import importlib
    root = Path(tempfile.mkdtemp(prefix="sift-code-names-")) / "corpus"
    for name in PACKAGES:
        package = Path(importlib.import_module(name).__file__).parent
        shutil.copytree(package, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "svc").mkdir(parents=True)
    for name, text in SVC.items():
        (root / "svc" / name).write_text(text)
    return root


def build(home: Path, collections=None) -> None:
    """An index in ``home`` of what ``collections()`` gives (name: folder; the corpus above, as 'corpus', by
    default), through the real pipeline in huey's immediate mode; one built there before is kept (and nothing is
    copied for it)."""
    os.environ["SIFT_HOME"] = str(home)
    from search.index import store
    from workers import runtime, tasks
    from workers.app import huey
    runtime.reset()
    conn = runtime.index()
    if conn.execute("SELECT 1 FROM collections WHERE published IS NOT NULL").fetchone():
        return
    huey.immediate = True
    for name, root in (collections() if collections else {"corpus": corpus()}).items():
        tasks.discover(store.ensure_collection(conn, name, str(root))["id"])
    huey.immediate = False


def good(hit, path, symbol) -> bool:
    if not hit.path.endswith(path):
        return False
    if isinstance(symbol, int):  # the definition's line must be in the passage
        return hit.start_line <= symbol <= hit.end_line
    # a passage of joined definitions names each in its heading ('mini > MiniHuey > periodic_task, start', '+N')
    names = re.sub(r" \+\d+$", "", hit.heading_path.split(" > ")[-1]).split(", ")
    return not symbol or symbol in [name.split(".")[-1] for name in names]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, help="where to build the index (reused when built)")
    args = parser.parse_args()
    os.environ.setdefault("SIFT_MODEL", "minilm")
    build(args.home or Path(tempfile.mkdtemp(prefix="sift-code-names-home-")))
    from search.query.engine import from_settings
    from search.settings import load
    engine = from_settings(load())
    for mode in ("hybrid", "keyword"):
        first = five = 0
        for query, path, symbol in QUERIES:
            hits = engine.search(query, limit=5, mode=mode).hits
            ranks = [i for i, hit in enumerate(hits, start=1) if good(hit, path, symbol)]
            first += bool(ranks) and ranks[0] == 1
            five += bool(ranks)
            if not ranks or ranks[0] > 1:
                top = f"{hits[0].path}:{hits[0].start_line} {hits[0].heading_path}" if hits else "-"
                print(f"  {mode}: {'r%d' % ranks[0] if ranks else 'miss'} {query!r} (top: {top})")
        print(f"{mode}: hit@1 {first}/{len(QUERIES)}, hit@5 {five}/{len(QUERIES)}")


if __name__ == "__main__":
    main()
