#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Unused and test-only exports in src/, checked on the source text.

A function exported from src/ is a definition in src/**/*.c that is not static (main() aside).
It must be referenced by product code other than its own definition and its declarations: a
call, or its name used as a value (a callback, a cleanup function, a table entry), in any .c or
.h below src/, its own file included (a caller in the same file keeps an export; whether that
export could be static is left to review). A function that nothing references is unused; one
that only tests reference is test code in the product (ARCHITECTURE.md, "No test code in the
product"): either way it goes, or the test exercises the product path that would use it.

What is a definition and what is a reference, on the text with comments, string and character
literals removed:
  - at brace depth 0 and outside a preprocessor line, NAME( is a declaration or a definition (a
    definition when its parameter list is followed by "{");
  - every other occurrence of NAME is a reference: inside a function body or an initialiser,
    in a #define, or as an argument at file scope (DEFINE_TRIVIAL_CLEANUP_FUNC(T, NAME)).
Functions made by macros (DEFINE_STRING_TABLE_LOOKUP) have no definition in the text and are not
checked.

  exports.py SRC_DIR [TESTS_DIR]

Every export without a reference is listed as FILE:LINE: NAME: unused (or: used only by tests:
the test files that name it, when TESTS_DIR is given). Exit 0 when there is none, 1 otherwise.

ALLOWED names exports that stay although no product code references them, each with the reason.
"""
import os
import re
import sys

# name -> why it stays although no product code references it. Keep this short: an entry is a
# decision, written down.
ALLOWED = {
}

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def strip(text):
    """text without comments and string/char literals (replaced by spaces, newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_preprocessor(text):
    """(code, directives): the text with every preprocessor line (continuations included) blanked,
    and the text of those lines alone (blank elsewhere); both keep the line numbers."""
    code, directives = [], []
    in_directive = False
    for line in text.split("\n"):
        if in_directive or line.lstrip().startswith("#"):
            directives.append(line)
            code.append("")
            in_directive = line.rstrip().endswith("\\")
        else:
            directives.append("")
            code.append(line)
    return "\n".join(code), "\n".join(directives)


def matching_paren(code, i):
    """index after the ")" that closes the "(" at i (or len(code))."""
    depth = 0
    for j in range(i, len(code)):
        if code[j] == "(":
            depth += 1
        elif code[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(code)


def scan(code):
    """Yield (name, offset, kind) for each identifier in code (no directives): kind is "def" for
    a function definition, "decl" for a declaration, "ref" otherwise; and for "def", whether the
    statement holds "static" and its return type part."""
    depth = 0
    stmt_start = 0
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c == "{":
            depth += 1
            i += 1
            continue
        if c == "}":
            depth -= 1
            i += 1
            if depth == 0:
                stmt_start = i
            continue
        if c == ";" and depth == 0:
            stmt_start = i + 1
            i += 1
            continue
        m = IDENT.match(code, i) if (c.isalpha() or c == "_") else None
        if not m:
            i += 1
            continue
        name = m.group(0)
        j = m.end()
        k = j
        while k < n and code[k] in " \t\n":
            k += 1
        if depth == 0 and k < n and code[k] == "(" and not re.search(r"[=,(]\s*$", code[stmt_start:i]):
            # a declarator at file scope: what follows its parameter list says which kind
            after = matching_paren(code, k)
            while True:
                while after < n and code[after] in " \t\n":
                    after += 1
                a = IDENT.match(code, after)    # attributes: _printf_(1, 2), __attribute__((...))
                if a and a.end() < n and code[a.end()] == "(":
                    after = matching_paren(code, a.end())
                    continue
                break
            head = code[stmt_start:i]
            if after < n and code[after] == "{":
                yield name, i, "def", bool(re.search(r"\bstatic\b", head))
            else:
                yield name, i, "decl", False
            i = j
            continue
        yield name, i, "ref", False
        i = j


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: exports.py SRC_DIR [TESTS_DIR]", file=sys.stderr)
        return 64
    src = os.path.abspath(sys.argv[1])
    tests = os.path.abspath(sys.argv[2]) if len(sys.argv) == 3 else None

    exports = {}        # name -> (file, line)
    refs = {}           # name -> count
    for dirpath, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = strip(fh.read())
            code, directives = split_preprocessor(text)
            for m in IDENT.finditer(directives):
                if m.group(0) not in ("define", "include", "if", "ifdef", "ifndef", "endif", "else", "elif",
                                      "undef", "pragma", "defined"):
                    refs[m.group(0)] = refs.get(m.group(0), 0) + 1
            for name, off, kind, static in scan(code):
                if kind == "ref":
                    refs[name] = refs.get(name, 0) + 1
                elif kind == "def" and not static and f.endswith(".c") and name != "main":
                    exports[name] = (os.path.relpath(path, os.path.dirname(src)), line_of(code, off))

    test_texts = {}
    if tests:
        for dirpath, _, files in os.walk(tests):
            for f in sorted(files):
                if f.endswith((".c", ".h", ".sh", ".py")):
                    path = os.path.join(dirpath, f)
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        test_texts[os.path.relpath(path, os.path.dirname(tests))] = fh.read()

    bad = 0
    for name in sorted(exports, key=lambda x: exports[x]):
        if refs.get(name, 0) > 0:
            continue
        if name in ALLOWED:
            continue
        where = [t for t, body in test_texts.items() if re.search(r"\b%s\b" % re.escape(name), body)]
        what = "used only by tests (%s)" % ", ".join(where) if where else "unused"
        print("%s:%d: %s: %s: make it static, use it, or remove it" % (exports[name] + (name, what)))
        bad += 1
    for name in sorted(ALLOWED):
        if name not in exports:
            print("exports.py: ALLOWED names %s, which is no export of %s: remove the entry" % (name, src))
            bad += 1
    if bad:
        print("%d export(s) no product code uses" % bad)
        return 1
    print("every export of %s is used by product code (%d exports)" % (src, len(exports)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
