"""The documentation's examples, as the tests read them: a page of README.md or docs/, a
section of it by its heading, and the fenced code blocks of a language in it. Text the
tests need that has gone missing fails the test, naming the page and what is missing."""
import os

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))


def page(name):
    """The text of README.md or docs/NAME.md (a path from the checkout's root)."""
    path = os.path.join(ROOT, name)
    if not os.path.exists(path):
        raise AssertionError("{}: no such page of the documentation".format(name))
    with open(path, encoding="utf-8") as f:
        return f.read()


def _lines_outside_code(text):
    """(index, line, outside) for each line: outside is False within fenced code."""
    fenced = False
    for i, line in enumerate(text.split("\n")):
        if line.startswith("```"):
            fenced = not fenced
            yield i, line, False
            continue
        yield i, line, not fenced


def _level(line):
    return len(line) - len(line.lstrip("#")) if line.startswith("#") else 0


def section(name, heading):
    """The section of page NAME whose heading line starts with HEADING ("## verl"), up to
    the next heading of its level or above (never a `#` line inside code)."""
    lines = page(name).split("\n")
    start = None
    for i, line, outside in _lines_outside_code("\n".join(lines)):
        if not outside or not line.startswith("#"):
            continue
        if start is None:
            if line.startswith(heading):
                start, level = i, _level(line)
        elif _level(line) <= level:
            return "\n".join(lines[start:i])
    if start is None:
        raise AssertionError("{}: no section headed {!r}".format(name, heading))
    return "\n".join(lines[start:])


def blocks(text, language):
    """The fenced ```LANGUAGE blocks of TEXT, in order, without their fences."""
    out, current = [], None
    for _, line, _ in _lines_outside_code(text):
        if current is None:
            if line == "```" + language:
                current = []
        elif line.startswith("```"):
            out.append("\n".join(current) + "\n")
            current = None
        else:
            current.append(line)
    return out


def block(text, language, containing, where):
    """The first ```LANGUAGE block of TEXT that contains CONTAINING; WHERE names the text
    in the error when there is none."""
    for b in blocks(text, language):
        if containing in b:
            return b
    raise AssertionError("{}: no ```{} block containing {!r}".format(where, language, containing))
