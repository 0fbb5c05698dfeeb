#!/usr/bin/env python3
"""Every relative link in the given Markdown files must name a file that exists and, with
#anchor, a heading of that file (GitHub's anchors: lower case, punctuation dropped, spaces
as hyphens, -1, -2 … for repeats). Links to http(s) and mailto are not followed.

    python3 Tests/Docs/check_links.py README.md docs/*.md
    python3 Tests/Docs/check_links.py --self-test

Prints each broken link as FILE:LINE: what is wrong, and exits 1 if there is any.
"""

import os
import re
import sys
import tempfile

LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose_lines(text):
    """(number, line) of the lines outside fenced code blocks."""
    inside = False
    for number, line in enumerate(text.split("\n"), start=1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            yield number, line


def slug(heading):
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading: its text
    text = text.lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    seen = {}
    result = set()
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    for _, line in prose_lines(text):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    # Explicit anchors: <a id="…"> or <a name="…">.
    result.update(re.findall(r"<a (?:id|name)=\"([^\"]+)\"", text))
    return result


def check(files):
    problems = []
    cache = {}
    for source in files:
        with open(source, encoding="utf-8") as handle:
            text = handle.read()
        # Paragraph by paragraph, so that a link whose text wraps onto the next line is read whole.
        paragraphs = []
        for number, line in prose_lines(text):
            if not line.strip():
                paragraphs.append(None)
            elif paragraphs and paragraphs[-1] is not None and paragraphs[-1][1] == number - 1:
                first, _, joined = paragraphs[-1]
                paragraphs[-1] = (first, number, joined + "\n" + line)
            else:
                paragraphs.append((number, number, line))
        for paragraph in paragraphs:
            if paragraph is None:
                continue
            first, _, joined = paragraph
            # Inline code is not a link: `[x](y)` in backticks is left alone.
            joined = re.sub(r"`[^`\n]*`", lambda m: " " * len(m.group(0)), joined)
            for match in LINK.finditer(joined):
                number = first + joined.count("\n", 0, match.start(1))
                target = match.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue  # http:, https:, mailto:
                path, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(source), path)) if path else source
                where = f"{source}:{number}"
                if not os.path.exists(resolved):
                    problems.append(f"{where}: {target}: no file {resolved}")
                    continue
                if anchor:
                    if not resolved.endswith(".md"):
                        problems.append(f"{where}: {target}: an anchor into a file that is not Markdown")
                        continue
                    if resolved not in cache:
                        cache[resolved] = anchors(resolved)
                    if anchor not in cache[resolved]:
                        problems.append(f"{where}: {target}: {resolved} has no heading with the anchor #{anchor}")
    return problems


def self_test():
    """The checker must catch a missing file and a missing anchor, and pass good links."""
    with tempfile.TemporaryDirectory() as directory:
        good = os.path.join(directory, "good.md")
        other = os.path.join(directory, "other.md")
        with open(other, "w", encoding="utf-8") as handle:
            handle.write("# Other\n\n## When peers do not show up: `confab doctor`\n\n## Files\n\n## Files\n")
        with open(good, "w", encoding="utf-8") as handle:
            handle.write(
                "[a](other.md) [b](other.md#when-peers-do-not-show-up-confab-doctor) [c](other.md#files-1)\n"
                "[d](#top) [e](https://example.com/x)\n\n# Top\n```\n[not a link](nowhere.md)\n```\n")
        bad = os.path.join(directory, "bad.md")
        with open(bad, "w", encoding="utf-8") as handle:
            handle.write("[a](missing.md)\n[b](other.md#no-such-heading)\n\nwrapped [link\ntext](other.md#nowhere)\n")
        assert check([good]) == [], check([good])
        found = check([bad])
        assert len(found) == 3 and "no file" in found[0] and "no heading" in found[1], found
        assert found[2].startswith(bad + ":5:"), found
    print("check_links: self-test passed (a missing file and a missing anchor, in a wrapped link too, are caught)")


def main(arguments):
    if arguments == ["--self-test"]:
        self_test()
        return 0
    if not arguments:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(arguments)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_links: {len(problems)} broken link(s): fix the path or the anchor (headings give anchors)")
        return 1
    print(f"check_links: every relative link in {len(arguments)} file(s) resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
