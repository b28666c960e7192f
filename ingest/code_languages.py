"""The languages Sift reads as code, by a file's extension, its name (Makefile, Dockerfile) or its shebang line.

A table without the parser: ingest.kinds (which kind a file is), the scan and `ingest files` ask it of every file,
and importing ingest.code for it brought tree-sitter's forms, the chunker and the YAML reader with it (0.25 s of
each `ingest files` and `ingest similar`). ingest.code parses by it and re-exports its names.
"""
from __future__ import annotations

import re

LANGUAGES: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    # .h is parsed as C++: that grammar reads C headers too, the C one loses C++ classes.
    ".h": "cpp", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp",
    ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp",
    ".cs": "c_sharp",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby",
    ".php": "php",
    ".kt": "kotlin", ".kts": "kotlin",
    ".swift": "swift",  # no grammar in tree-sitter-languages 1.10.2: line windows
    ".sh": "bash", ".bash": "bash", ".zsh": "bash",
    ".scala": "scala",
    # .lua stays windowed by lines: tree-sitter-languages 1.10.2's Lua grammar reads 'local x = 1' as an error
    ".jl": "julia",
    ".pl": "perl", ".pm": "perl",
    ".sql": "sql",
    ".r": "r",  # its functions are assignments (ingest.code_forms.r_functions); it was windowed by lines
    # no grammar in tree-sitter-languages: outlined by indentation (ingest.code_forms.cython); they were not read
    ".pyx": "cython", ".pxd": "cython", ".pxi": "cython",
}

# Build and container files known by their name alone (they have no extension): code, windowed by lines, Ruby's
# outlined. They were counted among '(no extension)' files Sift does not read, in every repository.
NAMED_FILES = {"makefile": None, "gnumakefile": None, "dockerfile": None, "containerfile": None,
               "justfile": None, "jenkinsfile": None, "rakefile": "ruby", "gemfile": "ruby", "vagrantfile": "ruby",
               "brewfile": "ruby",
               # a server's configuration without an extension, read by lines as a .conf is: counted among the
               # '(no extension)' files Sift does not read, so 'PermitRootLogin' never found sshd_config
               "sshd_config": None, "ssh_config": None, "caddyfile": None, "procfile": None, "crontab": None,
               "fstab": None, "sudoers": None, "hosts": None, ".htaccess": None,
               # a user's settings kept in a dotfiles repository: shells' startup scripts (as bash), git's,
               # readline's, vim's, screen's; counted among the files Sift does not read, so 'alias gs' found nothing
               ".bashrc": "bash", ".bash_profile": "bash", ".bash_aliases": "bash", ".bash_logout": "bash",
               ".profile": "bash", ".zshrc": "bash", ".zshenv": "bash", ".zprofile": "bash", ".zlogin": "bash",
               ".gitconfig": None, ".inputrc": None, ".vimrc": None, ".screenrc": None}
# (not .npmrc, .netrc, .curlrc: tokens and passwords; nor a tool's .editorconfig or .gitattributes, no one's words)
# Of those, the ones that are a server's configuration, whose brace blocks head their passages (ingest.code_forms.
# config_blocks), as a file of CONFIG_EXTENSIONS or of a config folder's (below) does
CONFIG_FILES = {"caddyfile", "sshd_config", "ssh_config", ".htaccess"}
# Folders whose files are a daemon's configuration, often without an extension: /etc/cron.d/backup,
# logrotate.d/nginx, sudoers.d/deploy, conf.d/…; nginx's and Apache's sites-enabled/default, where a site is named
# by its host too (sites-available/example.com: a host's last part is no file kind)
CONFIG_FOLDER_SUFFIX = ".d"
SITES_FOLDERS = {"sites-enabled", "sites-available"}
HOST_ENDINGS = {".com", ".org", ".net", ".io", ".dev", ".app", ".local", ".internal", ".lan", ".home", ".test"}


def code_file_name(path: str) -> bool:
    """Whether ``path`` names a build, container or configuration file by its name or its folder (Makefile,
    Dockerfile.dev, sshd_config, cron.d/backup, sites-enabled/default …)."""
    parts = path.lower().rsplit("/", 2)
    name, folder = parts[-1], parts[-2] if len(parts) > 1 else ""
    if name in NAMED_FILES or name.startswith(("dockerfile.", "containerfile.")):
        return True
    ending = name[name.rfind("."):] if "." in name.lstrip(".") else ""
    if folder in SITES_FOLDERS:
        return not ending or ending in HOST_ENDINGS
    return not ending and len(folder) > 2 and folder.endswith(CONFIG_FOLDER_SUFFIX)


def config_file(path: str) -> bool:
    """Whether ``path`` names a server's configuration: nginx.conf, my.cnf, Caddyfile, sites-enabled/default,
    conf.d/… (not a build file: a Makefile's '${VAR}' is no block)."""
    from ingest.kinds import CONFIG_EXTENSIONS, suffix
    name = path.rsplit("/", 1)[-1].lower()
    ending = suffix(name)
    return ending in CONFIG_EXTENSIONS or name in CONFIG_FILES or (
        not ending and name not in NAMED_FILES and not name.startswith(("dockerfile.", "containerfile."))
        and code_file_name(path))


# The interpreters a script's shebang line names (#!/bin/sh, #!/usr/bin/env python3) that have a grammar above:
# a file without an extension is read as code of that language (ingest.kinds.kind_of_script); other
# extensionless files stay unread.
INTERPRETERS = {"sh": "bash", "bash": "bash", "dash": "bash", "ksh": "bash", "zsh": "bash", "python": "python",
                "node": "javascript", "nodejs": "javascript", "ruby": "ruby", "php": "php",
                "perl": "perl"}
SHEBANG = re.compile(rb"#![ \t]*(\S+)[ \t]*([^\r\n]*)")
VERSIONED = re.compile(r"[\d.]+$")  # python3.11, node18: the interpreter without its version


SHEBANG_BYTES = 256  # of a file's start read for its shebang line


def shebang_language(head: bytes) -> str | None:
    """The language of the interpreter ``head``'s first line names as a shebang ('#!/usr/bin/env -S python3 -u':
    python), if ingest.code has its grammar; None for any other start."""
    found = SHEBANG.match(head)
    if not found:
        return None
    program, args = found.group(1).rsplit(b"/", 1)[-1], found.group(2).split()
    if program == b"env":  # the program is env's first argument that is neither an option nor NAME=value
        program = next((a for a in args if not a.startswith(b"-") and b"=" not in a), b"")
    return INTERPRETERS.get(VERSIONED.sub("", program.decode("utf-8", "replace")))
