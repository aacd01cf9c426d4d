#!/usr/bin/env python3
"""Checks that the repository's documentation links work inside it alone.

Every Markdown file of the repository (README.md, docs/, bench/, examples/,
python/, test/ ...; not build trees or git-ignored folders) is read, and every
link in it -- inline `[text](target)`, images, reference definitions
`[id]: target` -- outside code blocks and code spans is checked:

  * a relative target must name a file or folder that exists in the
    repository, resolved from the linking file's folder, and must not leave
    the repository (no `../shared/...`, no absolute paths);
  * a `#fragment` on a Markdown target (or alone: the same file) must be one
    of that file's headings, as GitHub makes anchors of them;
  * `http(s):` and `mailto:` links are not followed (nothing outside the
    repository is fetched).

Prints one line per broken link, `file:line: target: why`, and exits 1 when
there is any. `--self-test` runs the checker on a small tree with known
breakage and fails unless it finds exactly that breakage.

  check_links.py [ROOT]          (default: the repository holding this file)
  check_links.py --self-test
"""
import os
import re
import sys
import tempfile

SKIP_DIRS = {".git", ".deps", ".gpudata", ".out", "out", "__pycache__",
             ".hypothesis", "node_modules"}
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s<>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
EXTERNAL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def markdown_files(root):
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and
                         not (rel == "." and d.startswith("build")))
        for name in sorted(files):
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def slug(heading):
    """GitHub's anchor for a heading: lower case, markup and punctuation
    dropped, spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def lines_outside_code(text):
    """(line number, line with code spans blanked) outside fenced blocks."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is None and not line.startswith("    "):
            yield number, CODE_SPAN.sub(lambda s: " " * len(s.group(0)), line)


anchor_cache = {}


def anchors(path):
    if path not in anchor_cache:
        seen = {}
        found = set()
        with open(path, encoding="utf-8") as f:
            for _, line in lines_outside_code(f.read()):
                m = HEADING.match(line)
                if not m:
                    continue
                base = slug(m.group(1))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        anchor_cache[path] = found
    return anchor_cache[path]


def check_file(root, path):
    problems = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    rel = os.path.relpath(path, root)
    for number, line in lines_outside_code(text):
        targets = [m.group(1) for m in INLINE.finditer(line)]
        m = REFDEF.match(line)
        if m:
            targets.append(m.group(1))
        for target in targets:
            why = check_target(root, path, target)
            if why:
                problems.append(f"{rel}:{number}: {target}: {why}")
    return problems


def check_target(root, path, target):
    if EXTERNAL.match(target):
        return None
    file_part, _, fragment = target.partition("#")
    if file_part.startswith("/"):
        return "an absolute path (link relative to the repository instead)"
    if file_part:
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
        inside = os.path.relpath(resolved, root)
        if inside == ".." or inside.startswith(".." + os.sep):
            return "leaves the repository (it must be readable from a clone alone)"
        if inside.split(os.sep)[0] in SKIP_DIRS or inside.startswith("build"):
            return "points into a build or ignored folder"
        if not os.path.exists(resolved):
            return "no such file in the repository"
    else:
        resolved = path
    if fragment and resolved.endswith(".md") and os.path.isfile(resolved):
        if fragment not in anchors(resolved):
            return f"no heading with the anchor #{fragment} in {os.path.relpath(resolved, root)}"
    return None


def check(root):
    problems = []
    count = 0
    for path in markdown_files(root):
        count += 1
        problems += check_file(root, path)
    return count, problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        os.makedirs(os.path.join(root, "build", "x"))
        files = {
            "README.md": "# Top\n\n[ok](docs/a.md) [ok anchor](docs/a.md#the-part)\n"
                         "[missing](docs/nope.md)\n[outside](../shared/spec.md)\n"
                         "`[in code](nowhere.md)`\n```\n[in fence](nowhere.md)\n```\n"
                         "[bad anchor](docs/a.md#no-such)\n[self](#top)\n"
                         "[web](https://example.org/x) [abs](/etc/passwd)\n"
                         "[build](build/x)\n[ref]: docs/gone.md\n",
            "docs/a.md": "# A\n\n## The part\n\n[up](../README.md) [dir](.)\n",
        }
        for name, text in files.items():
            with open(os.path.join(root, name), "w", encoding="utf-8") as f:
                f.write(text)
        _, problems = check(root)
        got = sorted(p.split(": ")[0] + ": " + p.split(": ")[1] for p in problems)
        want = sorted(["README.md:4: docs/nope.md", "README.md:5: ../shared/spec.md",
                       "README.md:10: docs/a.md#no-such", "README.md:12: /etc/passwd",
                       "README.md:13: build/x", "README.md:14: docs/gone.md"])
        if got != want:
            print("check_links self-test FAILED\n  want:", want, "\n  got: ", problems)
            return 1
        print(f"check_links self-test: ok ({len(want)} broken links found, none else)")
        return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    root = os.path.abspath(argv[1] if len(argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    count, problems = check(root)
    for p in problems:
        print(p)
    print(f"check_links: {count} Markdown files, {len(problems)} broken link(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
